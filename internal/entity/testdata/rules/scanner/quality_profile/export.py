from scanner.quality_profile.model import QualityProfile


def export_quality_profile(quality_profile: QualityProfile, writer):
    for active_rule in quality_profile.active_rules:
        writer.write(f"{active_rule.rule_key}={active_rule.severity}\n")


def export_all_quality_profiles(quality_profiles, writer):
    for quality_profile in quality_profiles:
        export_quality_profile(quality_profile, writer)
