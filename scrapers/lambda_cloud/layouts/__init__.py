"""Lambda's response layouts, one module each (``detect``, ``rows``, ``read_row``); the package's
``parse_with_exclusions`` reads each response with the first layout that detects it."""
