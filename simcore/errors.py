"""The one error type the engines raise for bad input."""


class ScenarioError(ValueError):
    """Invalid scenario, policy, trace or parameter.

    ``field`` is the dotted name of the offending parameter (or ``trace:LINE:FIELD`` for trace
    files), so forms and the API can show the message beside the right input.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class DecodedTooLarge(ScenarioError):
    """A file's decoded (decompressed) data passed the reader's ``max_bytes``: the site that
    set the limit says which of its settings it comes from."""


class RunCancelled(Exception):
    """Raised by a progress callback to stop a simulation at its next event."""
