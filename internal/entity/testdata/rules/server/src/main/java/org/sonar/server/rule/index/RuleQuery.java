package org.sonar.server.rule.index;

public class RuleQuery {
  private String queryText;
  private String qualityProfileKey;
  private String severity;

  public String getQueryText() {
    return queryText;
  }

  public RuleQuery setQueryText(String queryText) {
    this.queryText = queryText;
    return this;
  }

  public String getQualityProfileKey() {
    return qualityProfileKey;
  }

  public RuleQuery setQualityProfileKey(String qualityProfileKey) {
    this.qualityProfileKey = qualityProfileKey;
    return this;
  }
}
