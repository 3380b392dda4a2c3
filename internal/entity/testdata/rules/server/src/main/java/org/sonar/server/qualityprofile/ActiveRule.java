package org.sonar.server.qualityprofile;

import org.sonar.server.rule.RuleKey;
import org.sonar.server.rule.RuleSeverity;

public class ActiveRule {
  private final RuleKey ruleKey;
  private final String qualityProfileKey;
  private RuleSeverity severity;
  private String inheritance;

  public ActiveRule(String qualityProfileKey, RuleKey ruleKey) {
    this.qualityProfileKey = qualityProfileKey;
    this.ruleKey = ruleKey;
  }

  public RuleKey getRuleKey() {
    return ruleKey;
  }

  public String getQualityProfileKey() {
    return qualityProfileKey;
  }

  public RuleSeverity getSeverity() {
    return severity;
  }
}
