package org.sonar.server.qualityprofile;

import java.util.List;
import org.sonar.server.rule.RuleKey;

public class QualityProfile {
  private final String qualityProfileKey;
  private final String language;
  private String parentKey;
  private List<ActiveRule> activeRules;

  public QualityProfile(String qualityProfileKey, String language) {
    this.qualityProfileKey = qualityProfileKey;
    this.language = language;
  }

  public String getQualityProfileKey() {
    return qualityProfileKey;
  }

  public String getParentKey() {
    return parentKey;
  }

  public List<ActiveRule> getActiveRules() {
    return activeRules;
  }

  public boolean isActive(RuleKey ruleKey) {
    return activeRules.stream().anyMatch(a -> a.getRuleKey().equals(ruleKey));
  }
}
