"""README.md's Python examples, read from README.md itself so that a test
runs what the reader copies."""
import os
import re

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def readme_pipeline(variable):
    """The pipeline description README assigns to `variable` in a Python
    block (`    name = ("..." "...")`), as the string Python makes of it."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    found = re.search(r"\n    %s = (\(.*?\))\n" % re.escape(variable), text, re.S)
    if found is None:
        raise AssertionError("README.md has no `%s = (...)` example" % variable)
    return eval(re.sub(r"\n    ", "\n", found.group(1)), {})  # string literals only
