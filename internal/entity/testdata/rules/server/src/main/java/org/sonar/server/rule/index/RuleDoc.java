package org.sonar.server.rule.index;

import org.sonar.server.rule.Rule;

public class RuleDoc {
  private String ruleKey;
  private String name;
  private String htmlDescription;
  private String severity;

  public static RuleDoc of(Rule rule) {
    RuleDoc doc = new RuleDoc();
    doc.ruleKey = rule.getKey().toString();
    doc.name = rule.getName();
    doc.htmlDescription = rule.getHtmlDescription();
    doc.severity = rule.getSeverity().name();
    return doc;
  }
}
