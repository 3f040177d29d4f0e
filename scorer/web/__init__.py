"""The web app: the Flask app factory, permissions, devices, translations, caches,
presenters, forms and the views (HTML pages and JSON commands, both thin adapters over
the commands of :mod:`scorer.storage`).

Imports every layer below it (rules, evening, storage, reports); never the command line.
"""
