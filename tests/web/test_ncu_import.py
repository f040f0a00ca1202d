"""An Nsight Compute page imported as a regime's profile: its kernels bucketed, each kernel's launch in words."""

import gzip
import html

from tests.web.test_imports import DATA, confirm, counts, token_of, upload


def test_the_raw_page_becomes_a_profile_and_the_preview_says_how_each_kernel_launched(client, app, demo_id):
    before = counts(app)
    preview = upload(client, demo_id, "ncu/ncu_raw.csv", regime="batch 1", step_ms="42.96")
    said = html.unescape(preview.text)
    assert preview.status_code == 200, said
    assert "ncu_csv" in said and "launch (Nsight Compute)" in said
    assert "76 blocks of 384 threads on 132 SMs, 14.1% achieved occupancy, 82.5% of DRAM bandwidth" in said
    assert 'data-bucket="dense_gemm"' in preview.text
    assert "NVIDIA H100 80GB HBM3" in said  # the raw page names the GPU: checked against the campaign's (an H200)
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 204
    assert counts(app)[1] > before[1] and counts(app)[2] == before[2] + 1


def test_the_details_page_as_ncu_wrote_it_is_read_too(client, app, demo_id, tmp_path):
    details = tmp_path / "ncu_details.csv"
    details.write_bytes(gzip.decompress((DATA / "ncu" / "ncu_details.csv.gz").read_bytes()))
    preview = upload(client, demo_id, details, regime="batch 1", step_ms="42.96")
    said = html.unescape(preview.text)
    assert preview.status_code == 200, said
    assert "76 blocks of 384 threads on 132 SMs, 14.1% achieved occupancy, 82.4% of DRAM bandwidth" in said


def test_a_truncated_page_is_refused_naming_the_file_and_line_and_writes_nothing(client, app, demo_id, tmp_path):
    text = (DATA / "ncu" / "ncu_raw.csv").read_text()
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: text.index("\n", len(text) // 2) + 40])
    before = counts(app)
    refused = upload(client, demo_id, cut, regime="batch 1", step_ms="42.96")
    assert refused.status_code == 422 and "cut.csv, line" in refused.text and "columns" in refused.text
    assert counts(app) == before


def test_the_regime_page_lists_the_profile_s_largest_kernels_with_how_they_launched(client, app, demo_id):
    preview = upload(client, demo_id, "ncu/ncu_raw.csv", regime="batch 1", step_ms="42.96")
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 204
    page = html.unescape(client.get(f"/campaigns/{demo_id}/regimes/1").text)
    assert "Largest kernels of this profile" in page and "launch (Nsight Compute)" in page
    assert "1 block of 128 threads on 132 SMs" in page  # one block, said as one
    assert page.index("nvjet_sm90_tst_384x8_64x4_4x1_v_bz_NNT") < page.index("nvjet_sm90_tst_384x8_64x4_2x1_v_bz_NNT")
    other = html.unescape(client.get(f"/campaigns/{demo_id}/regimes/2").text)
    assert "Largest kernels of this profile" not in other  # its profile was entered as shares: no kernels to list
