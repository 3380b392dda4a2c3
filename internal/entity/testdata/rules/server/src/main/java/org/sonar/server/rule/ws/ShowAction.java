package org.sonar.server.rule.ws;

import org.sonar.server.rule.Rule;
import org.sonar.server.rule.RuleKey;
import org.sonar.server.rule.RuleRepository;

public class ShowAction implements RulesWsAction {
  private final RuleRepository ruleRepository;

  public ShowAction(RuleRepository ruleRepository) {
    this.ruleRepository = ruleRepository;
  }

  @Override
  public void handle(Request request, Response response) {
    Rule rule = ruleRepository.selectByKey(RuleKey.parse(request.mandatoryParam("key")));
    writeRule(response, rule);
  }
}
