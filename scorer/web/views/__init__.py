"""Flask blueprints (thin: forms in, services and engine do the work)."""
