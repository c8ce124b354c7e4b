"""Bringing results from files into the store: the importer and the readers under parse/."""
