package org.sonar.server.rule.index;

import org.sonar.server.es.IndexDefinition;

public class RuleIndexDefinition implements IndexDefinition {
  public static final String INDEX_TYPE_RULE = "rules/rule";
  public static final String INDEX_TYPE_ACTIVE_RULE = "rules/activeRule";

  @Override
  public void define(IndexDefinitionContext context) {
    context.createIndex(INDEX_TYPE_RULE).addTextField("htmlDescription").addKeywordField("ruleKey");
  }
}
