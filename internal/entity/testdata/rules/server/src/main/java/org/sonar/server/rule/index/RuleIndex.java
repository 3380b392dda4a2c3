package org.sonar.server.rule.index;

import org.sonar.server.es.EsClient;
import org.sonar.server.es.SearchResult;

public class RuleIndex {
  private static final int MAX_TERM_LENGTH = 15;
  private final EsClient client;

  public RuleIndex(EsClient client) {
    this.client = client;
  }

  public SearchResult<RuleDoc> search(RuleQuery query, SearchOptions options) {
    String text = query.getQueryText();
    if (text != null && text.length() > MAX_TERM_LENGTH) {
      text = text.substring(0, MAX_TERM_LENGTH);
    }
    return client.search(RuleIndexDefinition.INDEX_TYPE_RULE, text, options, RuleDoc::new);
  }

  public long countByQualityProfile(String qualityProfileKey) {
    return client.count(RuleIndexDefinition.INDEX_TYPE_ACTIVE_RULE, qualityProfileKey);
  }
}
