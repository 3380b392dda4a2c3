class QualityProfile:
    def __init__(self, quality_profile_key, language, active_rules):
        self.quality_profile_key = quality_profile_key
        self.language = language
        self.active_rules = active_rules

    def is_active(self, rule_key):
        return any(a.rule_key == rule_key for a in self.active_rules)
