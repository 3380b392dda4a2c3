package org.sonar.server.rule;

import java.util.List;

public class Rule {
  private final RuleKey key;
  private String name;
  private String htmlDescription;
  private RuleSeverity severity;
  private List<RuleParam> params;

  public Rule(RuleKey key) {
    this.key = key;
  }

  public RuleKey getKey() {
    return key;
  }

  public String getName() {
    return name;
  }

  public String getHtmlDescription() {
    return htmlDescription;
  }

  public RuleSeverity getSeverity() {
    return severity;
  }

  public List<RuleParam> getParams() {
    return params;
  }
}
