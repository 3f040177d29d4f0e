"""The command line: ``nap settle`` (an evening file settled without the web app) and
``nap serve`` (the production server, waitress, with the LAN address and its QR code).

The top layer: may import every layer below it.
"""
