from scanner.quality_profile.model import QualityProfile


def backup_quality_profile(quality_profile: QualityProfile):
    return {
        "key": quality_profile.quality_profile_key,
        "language": quality_profile.language,
        "rules": [(a.rule_key, a.severity) for a in quality_profile.active_rules],
    }


def restore_quality_profile(backup):
    return QualityProfile(backup["key"], backup["language"], backup["rules"])
