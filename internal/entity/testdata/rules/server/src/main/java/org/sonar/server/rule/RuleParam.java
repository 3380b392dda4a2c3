package org.sonar.server.rule;

public class RuleParam {
  private final String paramKey;
  private final String defaultValue;

  public RuleParam(String paramKey, String defaultValue) {
    this.paramKey = paramKey;
    this.defaultValue = defaultValue;
  }

  public String paramKey() {
    return paramKey;
  }

  public String defaultValue() {
    return defaultValue;
  }
}
