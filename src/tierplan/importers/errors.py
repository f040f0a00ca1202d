"""The one error type importers raise: it names the file, where in it, and what was expected."""

from __future__ import annotations


class ImportFileError(ValueError):
    def __init__(self, file: str, where: str, message: str):
        self.file, self.where, self.message = file, where, message
        super().__init__(f"{file}, {where}: {message}" if where else f"{file}: {message}")
