"""Figures: pure functions of the model's columns, each with a typed result and no words."""
