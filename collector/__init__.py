"""steptrace collector: makes well-bounded captures inside training code. Needs torch; never imports textual."""
