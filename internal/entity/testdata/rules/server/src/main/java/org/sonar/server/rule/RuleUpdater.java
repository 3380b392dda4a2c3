package org.sonar.server.rule;

import org.sonar.server.rule.index.RuleIndexer;

public class RuleUpdater {
  private final RuleRepository ruleRepository;
  private final RuleIndexer ruleIndexer;

  public RuleUpdater(RuleRepository ruleRepository, RuleIndexer ruleIndexer) {
    this.ruleRepository = ruleRepository;
    this.ruleIndexer = ruleIndexer;
  }

  public boolean update(RuleUpdate update) {
    Rule rule = ruleRepository.selectByKey(update.getRuleKey());
    if (update.isChangeSeverity()) {
      updateSeverity(update, rule);
    }
    ruleRepository.update(rule);
    ruleIndexer.commitAndIndex(rule.getKey());
    return true;
  }

  private void updateSeverity(RuleUpdate update, Rule rule) {
    RuleSeverity severity = update.getSeverity();
    rule.setSeverity(severity);
  }
}
