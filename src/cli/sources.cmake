# The command's sources but main.cpp, listed once: src/cli builds the imghist command from them,
# fuzz/ compiles them into the merge and options fuzzers (plotting compiles without cairo there,
# and refuses --plot as a build without it does).
set(IMGHIST_CLI_SOURCES)
foreach(name options option_values settle help_text inputs charts decoder_process file_decoder decoder_protocol
             merge merge_entry option_file output output_text output_json output_csv output_table display_text sample_meaning sink interrupt
             plot plot_axes plot_clipping progress report_check tile_bound read_summary walk_rule chart_axis sensor_report)
  list(APPEND IMGHIST_CLI_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
endforeach()
