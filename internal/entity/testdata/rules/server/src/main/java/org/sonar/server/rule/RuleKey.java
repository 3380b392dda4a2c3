package org.sonar.server.rule;

public final class RuleKey {
  private final String repository;
  private final String rule;

  private RuleKey(String repository, String rule) {
    this.repository = repository;
    this.rule = rule;
  }

  public static RuleKey parse(String s) {
    int sep = s.indexOf(':');
    return new RuleKey(s.substring(0, sep), s.substring(sep + 1));
  }

  public String repository() {
    return repository;
  }

  public String rule() {
    return rule;
  }
}
