package org.sonar.server.rule.ws;

import org.sonar.server.rule.index.RuleIndex;
import org.sonar.server.rule.index.RuleQuery;

public class SearchAction implements RulesWsAction {
  private final RuleIndex ruleIndex;

  public SearchAction(RuleIndex ruleIndex) {
    this.ruleIndex = ruleIndex;
  }

  @Override
  public void handle(Request request, Response response) {
    RuleQuery query = new RuleQuery().setQueryText(request.param("q"))
      .setQualityProfileKey(request.param("qprofile"));
    writeRules(response, ruleIndex.search(query, SearchOptions.fromRequest(request)));
  }
}
