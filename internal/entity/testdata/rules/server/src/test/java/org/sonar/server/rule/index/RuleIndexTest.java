package org.sonar.server.rule.index;

import org.junit.Test;

public class RuleIndexTest {
  private final RuleIndex underTest = new RuleIndex(new FakeEsClient());

  @Test
  public void search_by_long_words_in_description() {
    RuleQuery query = new RuleQuery().setQueryText("characterization");
    assertThat(underTest.search(query, new SearchOptions()).getTotal()).isEqualTo(1);
  }
}
