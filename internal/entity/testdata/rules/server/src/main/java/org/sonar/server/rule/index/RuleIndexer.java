package org.sonar.server.rule.index;

import org.sonar.server.es.EsClient;
import org.sonar.server.rule.RuleKey;
import org.sonar.server.rule.RuleRepository;

public class RuleIndexer {
  private final EsClient client;
  private final RuleRepository ruleRepository;

  public RuleIndexer(EsClient client, RuleRepository ruleRepository) {
    this.client = client;
    this.ruleRepository = ruleRepository;
  }

  public void commitAndIndex(RuleKey ruleKey) {
    RuleDoc doc = RuleDoc.of(ruleRepository.selectByKey(ruleKey));
    client.index(RuleIndexDefinition.INDEX_TYPE_RULE, doc);
  }

  public void indexAllRules() {
    ruleRepository.selectAll().forEach(rule -> client.index(RuleIndexDefinition.INDEX_TYPE_RULE, RuleDoc.of(rule)));
  }
}
