"""Reports: what an evening looks like on paper and in pictures — the PDF summary (its
HTML, the pool of render workers, the worker process itself), the chart and the
spreadsheets.

Imports rules, evening and storage below it; never the web layer or the command line.
"""
