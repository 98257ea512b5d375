"""The API's JSON parser: what any JSON parser does, plus a depth limit.

Python's decoder recurses once per nesting level, so ``[[[[...]]]]`` a few thousand levels deep
ends in a RecursionError (a 500), and a few hundred levels slow every later walk over the data.
No request of this API nests deeper than a handful of levels.
"""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


def depth(value) -> int:
    """Nesting depth of decoded JSON (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(
            node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
        else:
            if depth(data) <= MAX_DEPTH:
                return data
        raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
