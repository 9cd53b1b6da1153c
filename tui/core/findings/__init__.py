"""The method's readings computed from the figures: observations with their cost, no words."""
