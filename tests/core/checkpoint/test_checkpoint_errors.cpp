// A damaged checkpoint folder gives an InputError naming the file and the problem, never a crash:
// each row copies a good generated checkpoint, breaks one thing and checks the message.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <fstream>
#include <functional>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

using Damage = std::function<void(const std::string& dir)>;

std::string source(const char* model) { return std::string(ATTNLAB_TEST_DATA) + "/reference/models/" + model; }

void copyDir(const QString& from, const QString& to) {
  for (const QString& f : QDir(from).entryList(QDir::Files)) QFile::copy(from + "/" + f, to + "/" + f);
}

void editJson(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = readJsonFile(path);
  edit(j);
  std::ofstream(path) << j.dump();
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void truncateFile(const std::string& path, std::size_t keep) {
  const std::string s = readTextFile(path);
  writeFile(path, s.substr(0, keep));
}

}  // namespace

Q_DECLARE_METATYPE(Damage)

class TestCheckpointErrors : public QObject {
  Q_OBJECT
 private slots:
  void damagedFolders_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<Damage>("damage");
    QTest::addColumn<QString>("message");  // expected after "<dir>/"
    auto row = [](const char* name, const char* model, Damage d, const char* msg) {
      QTest::newRow(name) << QString(model) << d << QString(msg);
    };
    auto rm = [](const char* f) {
      return [f](const std::string& d) { QFile::remove(QString::fromStdString(d + "/" + f)); };
    };
    auto config = [](std::function<void(nlohmann::json&)> e) {
      return [e](const std::string& d) { editJson(d + "/config.json", e); };
    };
    row("no config", "gpt2_tiny", rm("config.json"), "config.json is missing");
    // Something there that is not a file is named as such, not "missing" (and never read: a FIFO would block).
    row(
        "model.safetensors a folder", "gpt2_tiny",
        [](const std::string& d) {
          QFile::remove(QString::fromStdString(d + "/model.safetensors"));
          QDir().mkdir(QString::fromStdString(d + "/model.safetensors"));
        },
        "model.safetensors: is a folder, not a file");
    row(
        "config.json a FIFO", "gpt2_tiny",
        [](const std::string& d) {
          QFile::remove(QString::fromStdString(d + "/config.json"));
          QVERIFY(::mkfifo((d + "/config.json").c_str(), 0600) == 0);
        },
        "config.json: is not a regular file");
    row(
        "malformed config", "gpt2_tiny",
        [](const std::string& d) { writeFile(d + "/config.json", "{\"model_type\": \"gpt2\","); },
        "config.json: malformed JSON");
    row("unknown model_type", "gpt2_tiny", config([](auto& j) { j["model_type"] = "llama4"; }),
        "config.json: model_type \"llama4\" is not supported");
    row("no model_type", "bert_tiny", config([](auto& j) { j.erase("model_type"); }),
        "config.json: \"model_type\" is missing");
    row("field missing", "bert_tiny", config([](auto& j) { j.erase("hidden_size"); }),
        "config.json: \"hidden_size\" is missing");
    row("field wrong type", "gpt2_tiny", config([](auto& j) { j["n_head"] = "four"; }),
        "config.json: \"n_head\" must be an integer");
    // nlohmann's own message ("[json.exception.type_error.302] type must be boolean, but is string") named no field.
    row("boolean of the wrong type", "gpt2_tiny", config([](auto& j) { j["scale_attn_weights"] = "yes"; }),
        "config.json: \"scale_attn_weights\" must be true or false, not \"yes\"");
    row("type_vocab_size 0", "bert_tiny", config([](auto& j) { j["type_vocab_size"] = 0; }),
        "config.json: \"type_vocab_size\" must be an integer in [1,");
    row("heads do not divide", "gpt2_tiny", config([](auto& j) { j["n_head"] = 5; }),
        "config.json: the model width 32 is not divisible by the 5 heads");
    row("unknown activation", "bert_tiny", config([](auto& j) { j["hidden_act"] = "swish"; }),
        "config.json: activation \"swish\" is not supported");
    row("shape contradicts config", "gpt2_tiny", config([](auto& j) { j["n_embd"] = 64; }),
        "model.safetensors: tensor \"transformer.wte.weight\" has shape [377, 32], but config.json implies [377, 64]");
    row("more layers than tensors", "bert_tiny", config([](auto& j) { j["num_hidden_layers"] = 3; }),
        "model.safetensors: 16 tensors are missing: \"encoder.layer.2.attention.self.query.weight\"");
    row(
        "wrong architecture", "bert_tiny",
        [](const std::string& d) {  // a GPT-2 config and tokenizer over BERT weights
          for (const char* f : {"config.json", "vocab.json", "merges.txt", "tokenizer_config.json"}) {
            QFile::remove(QString::fromStdString(d + "/" + f));
            QFile::copy(QString::fromStdString(source("gpt2_tiny") + "/" + f), QString::fromStdString(d + "/" + f));
          }
        },
        "model.safetensors: no tensor \"transformer.wte.weight\", \"wte.weight\": this is not a GPT-2 checkpoint");
    row("no weights", "gpt2_tiny", rm("model.safetensors"), "model.safetensors is missing");
    row(
        "only pytorch_model.bin", "gpt2_tiny",
        [](const std::string& d) {
          QFile::rename(QString::fromStdString(d + "/model.safetensors"),
                        QString::fromStdString(d + "/pytorch_model.bin"));
        },
        "only pytorch_model.bin is there");
    row(
        "truncated weights", "gpt2_tiny", [](const std::string& d) { truncateFile(d + "/model.safetensors", 20000); },
        "model.safetensors: tensor");
    row(
        "truncated header", "bert_tiny", [](const std::string& d) { truncateFile(d + "/model.safetensors", 100); },
        "model.safetensors: header length");
    row("no tokenizer", "gpt2_tiny", rm("merges.txt"), "no GPT-2 tokenizer files");
    row("no vocab.txt", "bert_tiny", rm("vocab.txt"), "no BERT tokenizer files");
    row(
        "vocab invalid UTF-8", "gpt2_tiny",
        [](const std::string& d) { writeFile(d + "/vocab.json", "{\"\xc3\x28\": 0}"); }, "vocab.json: malformed JSON");
    row(
        "vocab.txt invalid UTF-8", "bert_tiny",
        [](const std::string& d) { writeFile(d + "/vocab.txt", "[UNK]\n\xff\xfe\n"); },
        "vocab.txt: line 2: invalid UTF-8");
    row(
        "tokenizer.json of the wrong kind", "gpt2_tiny_f16",
        [](const std::string& d) { editJson(d + "/tokenizer.json", [](auto& j) { j["model"]["type"] = "Unigram"; }); },
        "tokenizer.json: GPT-2 needs a BPE tokenizer");
    row(
        "tokenizer.json field of the wrong type", "gpt2_tiny_f16",
        [](const std::string& d) { editJson(d + "/tokenizer.json", [](auto& j) { j["model"]["merges"] = 7; }); },
        "tokenizer.json: model.merges is not a list");
  }
  void damagedFolders() {
    QFETCH(QString, model);
    QFETCH(Damage, damage);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    copyDir(QString::fromStdString(source(model.toLatin1().constData())), tmp.path());
    const std::string dir = tmp.path().toStdString();
    damage(dir);
    try {
      loadCheckpoint(dir);
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString got = e.what();
      QVERIFY2(got.startsWith(tmp.path() + "/" + message) || got.startsWith(tmp.path() + ": " + message),
               qPrintable(got));
    }
  }

  void anEmptyVocabularyIsNamedNotBlamedOnTheText() {
    // It said "the text has no tokens: type at least one word" to a user who had typed words.
    QTemporaryDir tmp;
    copyDir(QString(ATTNLAB_TEST_DATA) + "/reference/decoders/llama-gqa", tmp.path());
    const std::string dir = tmp.path().toStdString();
    editJson(dir + "/tokenizer.json", [](nlohmann::json& j) {
      j["model"]["vocab"] = nlohmann::json::object();
      j["model"]["merges"] = nlohmann::json::array();
      j["added_tokens"] = nlohmann::json::array();
      j["post_processor"] = nullptr;
    });
    const auto model = loadCheckpoint(dir);
    try {
      model->forward(model->tokenize("the cat sat"));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("the tokenizer's vocabulary is empty"), e.what());
    }
  }

  void aTokenBeyondTheEmbeddingTableIsNamed_data() {
    QTest::addColumn<int>("templateId");
    QTest::addColumn<QString>("message");
    // "<|far|>" gets id 409 as Hugging Face gives it (the next after the vocabulary), past the 409 embedding rows.
    QTest::newRow("added token") << 409
                                 << "token \"<|far|>\" (position 0) has id 409, outside the model's embedding table "
                                    "of 409 rows";
    QTest::newRow("template id of no token")
        << 500
        << "the tokenizer adds token id 500 at position 0 (its post-processor's template), which no vocabulary entry "
           "has and is outside the model's embedding table of 409 rows";
  }
  void aTokenBeyondTheEmbeddingTableIsNamed() {
    // The BOS the template prepends covers no text: the message named it "" before.
    QFETCH(int, templateId);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    copyDir(QString(ATTNLAB_TEST_DATA) + "/reference/decoders/llama-gqa", tmp.path());
    const std::string dir = tmp.path().toStdString();
    editJson(dir + "/tokenizer.json", [templateId](nlohmann::json& j) {
      j["added_tokens"].push_back({{"id", 409}, {"content", "<|far|>"}, {"special", true}, {"normalized", false}});
      for (auto& proc : j["post_processor"]["processors"])
        if (proc["type"] == "TemplateProcessing") {
          proc["single"][0]["SpecialToken"]["id"] = "<|far|>";
          proc["special_tokens"]["<|far|>"] = {{"id", "<|far|>"}, {"ids", {templateId}}, {"tokens", {"<|far|>"}}};
        }
    });
    const auto model = loadCheckpoint(dir);
    try {
      model->forward(model->tokenize("the cat"));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).startsWith(message), e.what());
    }
  }

  void notAFolder() {
    QVERIFY_THROWS_EXCEPTION(InputError, loadCheckpoint("/nonexistent/folder"));
    QTemporaryDir tmp;
    try {
      loadCheckpoint(tmp.path().toStdString());
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("config.json is missing: is this a Hugging Face checkpoint?"), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCheckpointErrors)
#include "test_checkpoint_errors.moc"
