import PlacesConfig

/// The whole commented default `config.toml`: the providers' sections, then the pipeline's.
public enum ConfigFileTemplate {
    public static var text: String {
        """
        # places configuration. Every value shown is the default; delete what you do not change.

        """ + ProvidersConfigTemplate.text + "\n" + PipelineConfigTemplate.text
    }
}
