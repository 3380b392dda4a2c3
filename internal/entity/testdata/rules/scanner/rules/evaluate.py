from scanner.rules.loader import RuleLoader


def evaluate_rules(loader: RuleLoader, source_file, language):
    findings = []
    for rule in loader.load_rules(language):
        if rule.applies_to(language):
            findings.extend(check_rule(rule, source_file))
    return findings


def check_rule(rule, source_file):
    return [line for line in source_file.lines if rule.rule_key in line]
