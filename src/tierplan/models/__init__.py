"""One model family per kind of row (XCreate, XUpdate, XPublic): each field declared once with its constraint,
title and help. Forms and the JSON API both fill them, through `parse_form` and FastAPI."""
