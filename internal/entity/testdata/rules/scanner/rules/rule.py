class Rule:
    def __init__(self, rule_key, severity):
        self.rule_key = rule_key
        self.severity = severity

    def applies_to(self, language):
        return self.rule_key.startswith(language + ":")
