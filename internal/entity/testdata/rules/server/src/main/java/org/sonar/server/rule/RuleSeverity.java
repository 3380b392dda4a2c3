package org.sonar.server.rule;

public enum RuleSeverity {
  INFO, MINOR, MAJOR, CRITICAL, BLOCKER;

  public boolean isAtLeast(RuleSeverity other) {
    return ordinal() >= other.ordinal();
  }
}
