package org.sonar.server.project;

public class Project {
  private final String projectKey;
  private String qualityProfileKey;

  public Project(String projectKey) {
    this.projectKey = projectKey;
  }

  public String getProjectKey() {
    return projectKey;
  }

  public String getQualityProfileKey() {
    return qualityProfileKey;
  }
}
