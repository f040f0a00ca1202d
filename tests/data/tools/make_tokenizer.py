"""Writes a small byte-level BPE Hugging Face tokenizer into a folder, for benchmark clients that need one and may
not download any (AIPerf's `--tokenizer` and GuideLLM's `--tokenizer kind=huggingface_auto,model=` take a local
path). Byte-level, so any text encodes and decodes whole; its merges are learnt from this docstring, so a token is
a few characters, as with a real model's tokenizer, and from the stub server's answer ("tok tok ..."), so each word
the server sends is the one token it counts. Run with the tools' own Python (tokenizers, transformers):

    python tests/data/tools/make_tokenizer.py OUT_DIR
"""

import sys

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast


def main() -> None:
    out = sys.argv[1]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|endoftext|>"])
    tokenizer.train_from_iterator([__doc__ or ""] * 4 + [" ".join(["tok"] * 64)] * 4, trainer)
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>").save_pretrained(out)


if __name__ == "__main__":
    main()
