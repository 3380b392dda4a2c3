package org.sonar.server.util;

public final class StringUtils {
  private StringUtils() {
  }

  public static String truncate(String value, int maxLength) {
    if (value == null || value.length() <= maxLength) {
      return value;
    }
    return value.substring(0, maxLength);
  }

  public static boolean isBlank(String value) {
    return value == null || value.trim().isEmpty();
  }
}
