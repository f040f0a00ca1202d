"""Pure formatting of core values for the pages, the markdown export and the API."""
