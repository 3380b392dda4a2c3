package org.sonar.server.project;

import java.time.Instant;

public class ProjectAnalysis {
  private final Project project;
  private final Instant analysisDate;

  public ProjectAnalysis(Project project, Instant analysisDate) {
    this.project = project;
    this.analysisDate = analysisDate;
  }

  public Project getProject() {
    return project;
  }

  public Instant getAnalysisDate() {
    return analysisDate;
  }
}
