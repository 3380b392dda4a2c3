"""Quality profile loading and activation."""

import os.path
from collections import OrderedDict
from .rules import Rule, load_rules

DEFAULT_LANGUAGE = "java"
MAX_RULES = 500
cache = {}


class ProfileError(Exception):
    pass


class QualityProfile:
    """A named set of active rules for one language."""

    def __init__(self, name, language=DEFAULT_LANGUAGE):
        self.name = name
        self.language = language
        self.rules = OrderedDict()

    def activate(self, rule: Rule) -> None:
        """Activate a rule, refusing rules of another language."""
        if rule.language != self.language:
            raise ProfileError("cannot activate rule %s in profile %s" % (rule.key, self.name))
        # FIXME: severity overrides are lost here
        self.rules[rule.key] = rule

    @property
    def size(self):
        return len(self.rules)


# Reads a profile file from disk.
def load_profile(path):
    if not os.path.exists(path):
        raise ProfileError(f"profile file {path} does not exist")
    profile = QualityProfile(os.path.basename(path))
    for rule in load_rules(path):
        profile.activate(rule)
    cache[path] = profile
    return profile


def _merge(a, b):
    merged = QualityProfile(a.name, a.language)
    merged.rules.update(a.rules)
    merged.rules.update(b.rules)
    return merged
