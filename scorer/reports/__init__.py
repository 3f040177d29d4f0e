"""Reports: what an evening says, in the reader's language, on paper and in pictures —
the words (the engine's text translated; numbers, money, dates), the presenters the PDF
and the pages share, the PDF summary (its HTML, the pool of render workers, the worker
process itself), the chart and the spreadsheets (CSV). Needs no request.

Imports rules, evening and storage below it; never the web layer or the command line.
"""
