package org.sonar.server.rule;

import java.util.List;

public interface RuleRepository {
  Rule selectByKey(RuleKey key);

  Rule selectTemplate(RuleKey templateKey);

  List<Rule> selectAll();

  void insert(Rule rule);

  void update(Rule rule);
}
