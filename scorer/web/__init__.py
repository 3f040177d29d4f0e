"""The web app: the Flask app factory and its hooks, permissions, the request's phone
(devices, access), choosing the language, caches, links for other phones, forms and the
views (HTML pages and JSON commands, both thin adapters over the commands of
:mod:`scorer.storage`).

Imports every layer below it (rules, evening, storage, reports); never the command line.
"""
