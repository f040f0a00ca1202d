"""HTTP shells: HTML pages (full or one htmx block) and the JSON API."""
