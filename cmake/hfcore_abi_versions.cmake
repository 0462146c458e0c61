# The plugin ABI version (HFCORE_PLUGIN_ABI_VERSION in the plugin headers) of each minor version of hfcore.
# find_package(hfcore X.Y) accepts only X.Y.z (SameMinorVersion), so every hfcore a plugin project can find
# under one version request loads the plugins it builds. Add a line when the minor version changes; change a
# line only while that version is unreleased. Checked at configure time (cmake/hfcore_layout.cmake).
set(HFCORE_PLUGIN_ABI_OF_0.1 1)
set(HFCORE_PLUGIN_ABI_OF_0.2 3)  # 2: FusedLikelihood::bind; 3: FusedLikelihood::input_gradient, expected_data_vjp and PluginBackend::k_batched_calls_pay (0.2 is unreleased)
