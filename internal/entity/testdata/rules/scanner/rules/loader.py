"""Loads the rule definitions that the scanner applies."""

from scanner.rules.rule import Rule


class RuleLoader:
    def __init__(self, repository):
        self.repository = repository

    def load_rules(self, language):
        return [Rule(r["key"], r["severity"]) for r in self.repository.fetch_rules(language)]

    def load_rule(self, rule_key):
        return Rule(rule_key, self.repository.fetch_rule(rule_key)["severity"])
