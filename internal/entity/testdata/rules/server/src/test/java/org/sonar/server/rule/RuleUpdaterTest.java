package org.sonar.server.rule;

import org.junit.Test;

public class RuleUpdaterTest {
  private final RuleRepository ruleRepository = new FakeRuleRepository();
  private final RuleUpdater underTest = new RuleUpdater(ruleRepository, new FakeRuleIndexer());

  @Test
  public void update_severity() {
    Rule rule = new Rule(RuleKey.parse("java:S100"));
    ruleRepository.insert(rule);
    underTest.update(new RuleUpdate(rule.getKey()).setSeverity(RuleSeverity.MAJOR));
    assertThat(ruleRepository.selectByKey(rule.getKey()).getSeverity()).isEqualTo(RuleSeverity.MAJOR);
  }
}
