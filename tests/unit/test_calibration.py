"""Calibration leaves out a run imported from a file of another setup."""


def test_a_run_imported_from_a_file_of_another_setup_calibrates_nothing():
    from tierplan.planning.checks import OTHER_SETUP, out_of_line

    assert out_of_line(f"{OTHER_SETUP}: the file names GPU 'H100', the campaign's hardware spec is 'B200'")
    assert not out_of_line("dated before every tier started")
