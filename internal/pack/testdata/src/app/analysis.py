from rules import RuleIndex


class Analysis:
    """Runs the active rules of a profile over a file."""

    def __init__(self, index: RuleIndex, profile: str):
        self.index = index
        self.profile = profile

    def run(self, path: str) -> list:
        rules = self.index.active(self.profile)
        issues = []
        for rule in rules:
            issues.extend(rule.check(path))
        return issues
