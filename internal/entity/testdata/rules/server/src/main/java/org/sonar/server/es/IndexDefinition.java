package org.sonar.server.es;

public interface IndexDefinition {
  void define(IndexDefinitionContext context);
}
