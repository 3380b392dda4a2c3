package org.sonar.server.rule;

import org.sonar.server.rule.index.RuleIndexer;

public class RuleCreator {
  private final RuleRepository ruleRepository;
  private final RuleIndexer ruleIndexer;

  public RuleCreator(RuleRepository ruleRepository, RuleIndexer ruleIndexer) {
    this.ruleRepository = ruleRepository;
    this.ruleIndexer = ruleIndexer;
  }

  public RuleKey createCustomRule(NewCustomRule newRule) {
    Rule template = ruleRepository.selectTemplate(newRule.templateKey());
    Rule rule = new Rule(RuleKey.parse(newRule.ruleKey()));
    for (RuleParam param : template.getParams()) {
      newRule.applyParam(param);
    }
    ruleRepository.insert(rule);
    ruleIndexer.commitAndIndex(rule.getKey());
    return rule.getKey();
  }
}
