"""HTTP shells: HTML pages (full or one htmx block) and the JSON API.

Row ids in paths use the `id` convertor: 1 to 9 digits, so an id no row can have (2^70, or one past the
databases' 32-bit integer) matches no route and answers 404 instead of reaching the database.
"""

from starlette.convertors import IntegerConvertor, register_url_convertor


class IdConvertor(IntegerConvertor):
    regex = "[0-9]{1,9}"


register_url_convertor("id", IdConvertor())
