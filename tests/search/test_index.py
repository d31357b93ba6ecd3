"""The search index: what a caller of the search tool would notice."""

from __future__ import annotations

import math
import random

import pytest

from toolbay.handlers.base import ToolDefinition
from toolbay.search import SearchIndex
from toolbay.search.documents import definition_from_mcp


def tool(name: str, description: str, **properties: str) -> ToolDefinition:
    schema = {"type": "object", "properties": {key: {"type": "string", "description": text}
                                               for key, text in properties.items()}}
    return ToolDefinition(name=name, description=description, input_schema=schema)


CATALOG = [
    tool("jsonkit_fmt", "Pretty-print or compact a JSON document.", indent="Spaces per level"),
    tool("jsonkit_get", "Print the JSON value found at a path in the document.", path="Dotted path"),
    tool("hashsum", "Compute md5, sha1, sha256 or crc32 digests of text.", algorithm="Digest algorithm"),
    tool("textkit_count", "Count lines, words, characters and bytes, like wc."),
    tool("image_resize", "画像のサイズを変更する。幅と高さを指定します。", width="幅 (ピクセル)"),
    tool("zip_compress", "压缩文件并生成归档。", level="压缩级别"),
    tool("weather_forecast", "Get the weather forecast for a city.", city="City name"),
    tool("weatherAlerts", "Severe weather alerts for a region.", region="Region code"),
]


def index_of(definitions: list[ToolDefinition] = CATALOG) -> SearchIndex:
    index = SearchIndex()
    index.put_many(definitions)
    return index


def names(index: SearchIndex, query: str, limit: int = 10) -> list[str]:
    return [hit.name for hit in index.search(query, limit).hits]


def test_an_english_request_finds_the_tool_that_does_it_first() -> None:
    index = index_of()
    assert names(index, "compute the sha256 digest of this text")[0] == "hashsum"
    assert names(index, "how many words are in this file?")[0] == "textkit_count"


def test_a_time_of_day_does_not_find_a_tool_by_the_letters_or_number_in_it() -> None:
    # Split into "2" and "pm", "2pm" found the air-quality tool (PM2.5) before the calendar's.
    # The lexical default: meaning, when asked for ([search] semantic), adds tools sharing no word.
    index = index_of([*CATALOG, tool("air_quality_index", "Air quality index and PM2.5 levels for a city."),
                      tool("calendar_delete_event", "Delete an event from the calendar.", event="Meeting to remove")])
    assert names(index, "cancel my 2pm meeting")[:1] == ["calendar_delete_event"]
    assert "air_quality_index" not in names(index, "cancel my 2pm meeting")
    assert names(index, "air quality pm2.5 in Paris")[:1] == ["air_quality_index"]


def test_words_of_a_split_name_are_found() -> None:
    index = index_of()
    assert names(index, "textkit")[:1] == ["textkit_count"]
    assert names(index, "weather alerts")[0] == "weatherAlerts"


def test_parameters_behind_refs_and_unions_are_found_as_pydantic_writes_them() -> None:
    """A Python tool whose arguments are pydantic models has them under ``$defs``, named by
    ``$ref``, and an optional one as ``anyOf`` with null: their names and descriptions were not
    indexed, and "postcode" found nothing though the tool takes one."""
    ship = ToolDefinition(name="ship_order", description="Ship an order.", input_schema={
        "type": "object",
        "properties": {
            "address": {"$ref": "#/$defs/Address"},
            "parcel": {"anyOf": [{"$ref": "#/$defs/Parcel"}, {"type": "null"}], "default": None},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
            "carrier": {"oneOf": [{"type": "object", "properties": {"courier_name": {"type": "string"}}},
                                  {"type": "object", "properties": {"depot_code": {"type": "string"}}}]},
        },
        "$defs": {
            "Address": {"type": "object", "description": "Where the order goes.", "properties": {
                "postcode": {"type": "string", "description": "Zip code of the recipient"},
                "next": {"$ref": "#/$defs/Address"}}},  # recursive: walked once
            "Parcel": {"type": "object", "properties": {"weight_kg": {"type": "number", "description": "Mass"}}},
            "Line": {"allOf": [{"type": "object", "properties": {"sku": {"type": "string",
                                                                           "description": "Stock keeping unit"}}}]},
        }})
    index = index_of([*CATALOG, ship, tool("cancel_order", "Cancel an order."), tool("list_orders", "List orders.")])
    for query in ("postcode", "postcode of the recipient", "weight", "stock keeping unit", "courier", "depot"):
        assert names(index, query)[:1] == ["ship_order"], query


def test_a_japanese_query_finds_the_tool_described_in_japanese() -> None:
    assert names(index_of(), "画像のサイズ変更")[0] == "image_resize"


def test_a_chinese_query_finds_the_tool_described_in_chinese() -> None:
    assert names(index_of(), "如何压缩文件")[0] == "zip_compress"


def test_a_chinese_character_alone_or_in_pairs_no_tool_has_finds_the_tools_written_with_it() -> None:
    """Chinese text is indexed as character pairs: "税" (tax) alone, "税金" (tax money) or
    "薬を探す" (find a medicine) shared no pair with the tools' descriptions and found nothing."""
    index = index_of([*CATALOG, tool("tax_calc", "计算个人所得税。"), tool("medicine_info", "薬の情報を検索します。"),
                      tool("stock_price", "株価を調べます。")])
    assert names(index, "税") == ["tax_calc"]
    assert names(index, "税金")[:1] == ["tax_calc"]
    assert names(index, "薬を探す")[:1] == ["medicine_info"]
    assert names(index, "株")[:1] == ["stock_price"]
    assert index.search("猫の写真", 5).no_match  # a cat's photo: no tool has its characters


def test_a_long_chinese_request_costs_little_however_common_its_characters_are() -> None:
    """Each pair of a request's Chinese characters that no tool has went through every indexed
    term holding either character, and a common one is in thousands: 2,000 characters took
    0.75 s of the event loop's time over 300 tools (about 20 ms now). Counted here as the terms
    looked up, not timed: about 15 million before, a few tens of thousands now."""
    rng = random.Random(3)
    pool = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)]
    index = index_of([tool(f"t{number}", "".join("的" + rng.choice(pool) for _ in range(50))) for number in range(300)])
    request = "".join("的" + chr(0x6000 + number % 1000) for number in range(1000))
    index.search("的", 3)  # the terms filed by their characters

    class CountedLookups(dict[str, dict[int, float]]):
        looked_up = 0

        def __contains__(self, term: object) -> bool:
            CountedLookups.looked_up += 1
            return super().__contains__(term)

    index._postings = CountedLookups(index._postings)
    outcome = index.search(request, 5)
    assert outcome.no_match
    assert CountedLookups.looked_up < 200_000


def test_a_word_every_tool_has_asks_the_caller_s_rights_of_each_tool_once_at_most() -> None:
    """3,000 tools that share a word tie for it, and whether the caller may know each was asked
    of every tied tool, for every pool the search tried (four here, five at 10,000 tools: 0.7 s
    a search on the event loop, an outside check). Counted here as the questions asked."""
    index = index_of([tool(f"dept{number}_report", "Run a report of the department.") for number in range(3_000)])
    asked: list[str] = []

    def allowed(key: str) -> bool:
        asked.append(key)
        return True

    outcome = index.search("department", 20, allowed)
    assert len(outcome.hits) == 20 and not outcome.no_match
    assert [hit.name for hit in outcome.hits] == sorted(hit.name for hit in outcome.hits)  # ties: by name
    assert len(asked) <= 3_000
    assert len(set(asked)) == len(asked)


def test_a_request_of_several_sentences_reads_each_of_its_texts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request, its sentences and their clauses were each read (``tokenize``) again for every
    pool the search tried and every sentence searched alone: half of a search's reading was of
    texts read already (at 10,000 tools, about a tenth of its time)."""
    from toolbay.search import index as index_module

    index = index_of([*CATALOG, *(tool(f"report_{number}", f"Report {number} of the weather and the text.")
                                  for number in range(40))])
    read: list[str] = []
    tokenize = index_module.tokenize

    def counted(text: str, *, request: bool = False) -> list[str]:
        if request:
            read.append(text)
        return tokenize(text, request=request)

    monkeypatch.setattr(index_module, "tokenize", counted)
    request = ("Count the words of the text, then compute its digest. Get the weather forecast for Paris, "
               "and the alerts. Print the value at a path of the JSON, then pretty-print it.")
    index.search(request, 10)
    assert len(read) > 3  # its sentences and clauses were read, not the request alone
    assert len(read) == len(set(read)), sorted(read)


def test_an_emoji_finds_the_tool_described_with_it() -> None:
    index = index_of([*CATALOG, tool("party_planner", "🎉 Plan a party: guests, food and music.", date="🗓️ The day")])
    assert names(index, "🎉") == ["party_planner"]
    assert names(index, "🗓")[:1] == ["party_planner"]  # a parameter's, without its variation selector
    assert index.search("🦄", 5).no_match  # a pictograph no tool has is no match, not any tool


def test_emoji_no_tool_has_leave_a_requests_scores_as_they_are() -> None:
    # Counted as words no tool has, six of them cut the weather tool's score from 0.39 to 0.10.
    index = index_of()
    plain = index.search("weather forecast for Paris", 5).hits
    decorated = index.search("weather forecast for Paris 🌧️🌧️🌧️🌧️🌧️🌧️", 5).hits
    assert [(hit.name, hit.score) for hit in decorated] == [(hit.name, hit.score) for hit in plain]


def test_an_exact_name_comes_first_with_the_top_score_in_any_case_or_inside_a_sentence() -> None:
    index = index_of()
    # "weather forecast" alone would rank both weather tools; the name decides.
    outcome = index.search("weatherAlerts")
    assert outcome.hits[0].name == "weatherAlerts" and outcome.hits[0].score == 1.0
    assert names(index, "JSONKIT_GET")[0] == "jsonkit_get"
    assert names(index, "please run jsonkit_fmt on my file")[0] == "jsonkit_fmt"


def test_a_plain_word_that_is_also_a_name_does_not_jump_the_ranking() -> None:
    index = index_of([*CATALOG, tool("compute", "Evaluate an arithmetic expression.")])
    assert names(index, "compute the sha256 digest of this text")[0] == "hashsum"


def test_results_are_best_first_and_at_most_the_limit() -> None:
    outcome = index_of().search("json document path", 2)
    assert [hit.name for hit in outcome.hits] == ["jsonkit_get", "jsonkit_fmt"]
    assert outcome.hits[0].score >= outcome.hits[1].score > 0
    assert not outcome.no_match


def test_nothing_relevant_is_no_match_not_padding() -> None:
    index = index_of()
    for query in ("book a flight to Lisbon", "", "the and of", "航班预订"):
        outcome = index.search(query)
        assert outcome.no_match, query
        assert outcome.hits == ()


def test_a_request_whose_only_known_terms_are_numbers_is_no_match() -> None:
    """'hunter2x9' found the tools whose names end in '_9' (an outside check): no word of it is
    known to any tool, so nothing in it asks for one; a number beside a known word still counts."""
    index = index_of([*CATALOG, tool("filter_csv_9", "Filter the rows of a CSV file."),
                      tool("top_songs", "List the top 10 songs of a year.")])
    for query in ("hunter2x9", "9", "2024", "zorblax 10"):
        outcome = index.search(query)
        assert outcome.no_match and outcome.hits == (), query
    assert names(index, "top 10 songs of 2024")[0] == "top_songs"
    assert names(index, "filter the csv rows")[0] == "filter_csv_9"


def test_a_removed_tool_is_never_returned_even_by_exact_name() -> None:
    index = index_of()
    assert index.remove("hashsum")
    assert "hashsum" not in names(index, "sha256 digest")
    assert "hashsum" not in names(index, "hashsum")
    assert not index.remove("hashsum")


def test_a_replaced_tool_is_found_by_its_new_words_only() -> None:
    index = index_of()
    index.put(tool("hashsum", "Encode bytes as base64 or hex."))
    assert names(index, "encode as base64")[0] == "hashsum"
    assert "hashsum" not in names(index, "md5 crc32 digest")
    assert len(index) == len(CATALOG)


def test_an_added_tool_is_found_at_once() -> None:
    index = index_of()
    index.put(tool("csv_sort", "Sort the rows of a CSV file by a column.", column="Column to sort by"))
    assert names(index, "sort csv rows by column")[0] == "csv_sort"


def test_tools_the_caller_may_not_use_are_never_returned() -> None:
    index = index_of()
    hidden = {"hashsum", "jsonkit_get"}
    allowed = lambda name: name not in hidden  # noqa: E731
    for query in ("hashsum", "sha256 digest", "json path value", "jsonkit_get"):
        assert not hidden & {hit.name for hit in index.search(query, 10, allowed).hits}, query


def test_an_index_that_changed_a_lot_one_tool_at_a_time_ranks_as_one_built_whole() -> None:
    one_by_one = SearchIndex()
    for definition in CATALOG:
        one_by_one.put(definition)
    whole = index_of()
    for query in ("json document", "weather for a city", "sha256", "画像のサイズ"):
        assert names(one_by_one, query) == names(whole, query), query


def test_keywords_find_a_tool_whose_description_does_not_say_them() -> None:
    index = index_of([*CATALOG, definition_from_mcp({
        "name": "jq_like", "description": "Select parts of a document.", "inputSchema": {"type": "object"},
        "_meta": {"toolbay/keywords": ["jmespath", "query"]}})])
    assert names(index, "jmespath")[0] == "jq_like"


TOPICS = ("crime", "weather", "traffic", "population", "rainfall", "unemployment", "tourism", "housing",
          "election", "vaccination", "pollution", "migration", "literacy", "inflation", "energy")


def test_a_request_that_many_tools_half_answer_is_no_match_until_the_tool_that_fits_is_added() -> None:
    # Fifteen tools share "retrieve statistics for a region"; none is about volcanoes, so each
    # answers the request about as well as the others, and far below what its words allow.
    index = index_of([tool(f"get{topic.capitalize()}Statistics", f"Retrieve {topic} statistics for a region",
                           region="Region name") for topic in TOPICS])
    request = "retrieve statistics on volcano eruptions for the region around Naples"
    outcome = index.search(request)
    assert outcome.no_match and outcome.hits == ()
    assert names(index, "retrieve rainfall statistics for the region around Naples")[0] == "getRainfallStatistics"
    index.put(tool("getVolcanoStatistics", "Retrieve volcano eruption statistics for a region", region="Region"))
    assert names(index, request)[0] == "getVolcanoStatistics"


def test_a_long_chatty_request_still_finds_the_one_tool_that_fits() -> None:
    # Most of these words are in no tool; the two that are point at one tool only. Dividing by
    # the query's length alone would call it too weak a match.
    request = ("Good morning! I have been sitting at my desk since dawn, drinking coffee and staring out of "
               "the window, planning a long bicycle ride along the coast with two old friends from school, "
               "and before we set off we would love to know the forecast for Lisbon")
    outcome = index_of().search(request)
    assert not outcome.no_match
    assert outcome.hits[0].name == "weather_forecast"


def test_a_query_every_tool_of_a_family_answers_fully_is_that_family_not_no_match() -> None:
    # A dozen github_* tools answer "github" equally, and each answers it as well as any tool
    # can: that is a family to choose from (what search-first is for), not a query for a tool
    # that is not there.
    family = [tool(f"github_{operation}", f"GitHub: {operation.replace('_', ' ')} in a GitHub repository",
                   owner="Repository owner") for operation in (
        "create_issue", "list_issues", "get_issue", "update_issue", "create_pull_request", "list_pull_requests",
        "merge_pull_request", "get_file_contents", "create_branch", "list_commits", "search_code", "fork_repository")]
    index = index_of([*CATALOG, *family])
    outcome = index.search("github", 5)
    assert not outcome.no_match
    assert len(outcome.hits) == 5 and all(hit.name.startswith("github_") for hit in outcome.hits)


def test_an_exact_name_is_not_padded_with_tools_that_only_share_a_word_of_it() -> None:
    generated = [tool(f"gen_tool_{n}", f"generated tool {n}") for n in range(40)]
    index = index_of([*CATALOG, *generated, tool("gen_secretive", "hush")])
    outcome = index.search("gen_secretive", 5)
    assert [hit.name for hit in outcome.hits] == ["gen_secretive"] and not outcome.no_match
    # A name among words that do find tools still comes first, and those tools follow it.
    assert names(index, "jsonkit_fmt to pretty-print the JSON document")[:2] == ["jsonkit_fmt", "jsonkit_get"]


def test_a_name_alone_finds_that_tool_alone_even_among_few_tools() -> None:
    # Fewer than ten tools match, so no lead over the tenth says the others are weak.
    index = index_of([tool("weather_forecast", "Forecast the weather for a city."),
                      tool("tides_forecast", "Forecast ocean tides at a harbour.")])
    assert names(index, "weather_forecast") == ["weather_forecast"]


def test_a_word_a_command_line_name_shortens_finds_that_tool() -> None:
    # jsonkit_fmt: "fmt" is how a program's name writes "format"; the request spells it out.
    index = index_of([*CATALOG, tool("jsonkit_keys", "List the keys of the object at a path of a JSON document.")])
    assert names(index, "format a JSON document")[0] == "jsonkit_fmt"


def first_found(query: str, *added: ToolDefinition) -> str:
    """The best tool for ``query`` among the catalog and ``added``."""
    return names(index_of([*CATALOG, *added]), query)[0]


def test_a_request_with_or_without_accents_finds_the_tool_either_way() -> None:
    assert first_found("previsions meteo", tool("city_forecast", "Prévisions météo pour une ville.")) == "city_forecast"
    assert first_found("café", tool("order_drink", "Order a drink at the nearest cafe.")) == "order_drink"


def test_a_thai_request_finds_the_tool_described_in_thai() -> None:
    # Thai is written without spaces, and its vowel and tone marks are not letters to a regex.
    assert first_found("อากาศ", tool("weather_th", "พยากรณ์อากาศวันนี้สำหรับเมือง"),
                       tool("news_th", "ข่าวล่าสุดวันนี้")) == "weather_th"


MANY_TOOLS = [tool(f"{noun}_tool", f"A tool that edits the {noun}.")
              for noun in ("invoice", "ledger", "recipe", "contract", "receipt", "playlist", "calendar", "roster",
                           "budget", "journal", "ticket", "voucher", "lease", "passport", "menu", "quiz", "thesis",
                           "gallery", "podcast", "mailbox")]


def test_a_request_whose_only_known_word_almost_every_tool_has_is_no_match() -> None:
    # The one tool this caller may use that has "tool" led nothing (no tenth best), but it
    # answers a hundredth of what the request asks: the request's other words are nobody's.
    index = index_of([*MANY_TOOLS, tool("zebra_finder", "Find zebras in a photo.")])
    outcome = index.search("odd tool charlie", allowed=lambda key: key in {"invoice_tool", "zebra_finder"})
    assert outcome.no_match and outcome.hits == ()


def test_tools_far_below_the_best_are_not_returned_beside_it() -> None:
    # "tool" alone gave each of the twenty others a score near zero after zebra_finder.
    assert names(index_of([*MANY_TOOLS, tool("zebra_finder", "Find zebras in a photo.")]), "zebra tool") == [
        "zebra_finder"]


def test_a_word_no_tool_has_finds_the_tools_with_its_relatives() -> None:
    assert first_found("translation into French", tool("translate_text", "Translate text into another language."),
                       tool("calculator", "Evaluate an arithmetic expression.")) == "translate_text"
    assert first_found("calculate 2 + 2", tool("calculator", "Evaluate an arithmetic expression.")) == "calculator"


def test_a_word_some_tool_has_is_matched_as_written() -> None:
    # Stemming every word measured worse: "formatting" would join tools that only format.
    index = index_of([tool("style_rules", "Formatting rules for the linter."),
                      tool("doc_tidy", "Format a document."), *CATALOG])
    assert names(index, "formatting") == ["style_rules"]


def test_a_request_for_ipv6_finds_the_tool_that_writes_ipv6_in_mixed_case() -> None:
    # "ipv6" found nothing in "IPv6", which was read as "pv6".
    ping = tool("ping6", "Send ICMP echo requests to an IPv6 host.")
    assert names(index_of([ping, *CATALOG]), "ipv6")[:1] == ["ping6"]


def test_a_request_for_ipv6_finds_the_tool_whose_camel_case_name_has_it() -> None:
    # "getIPv6Address" was indexed "get", "pv6", "address": "ipv6" was no match.
    lookup = tool("getIPv6Address", "Get the address of a host.")
    index = index_of([lookup, tool("get_mail_address", "Get the mail address of a user."), *CATALOG])
    assert names(index, "ipv6")[:1] == ["getIPv6Address"]


def test_a_word_and_its_number_written_apart_find_the_tool_that_writes_them_as_one() -> None:
    # "SHA-256" is read "sha" "256" and "blake2" "blake" "2", where "sha256" and "BLAKE2" are one term:
    # the tool that writes them so was not found by them at all.
    b2sum = tool("b2sum", "Compute and check BLAKE2 message digests.")
    index = index_of([b2sum, tool("news_digest", "Mail a digest of the news."), *CATALOG])
    assert names(index, "SHA-256 digest")[:1] == ["hashsum"]
    assert names(index, "blake2 digest")[:1] == ["b2sum"]


def test_two_numbers_written_apart_are_not_read_as_the_number_they_make() -> None:
    # "between 1 and 5" was read as "15" too (a number joined as a word and its number are),
    # and found the timer of "15 minutes", which has neither number, beside the tool asked for.
    index = index_of([tool("timer_set", "Set a timer for 15 minutes or more."),
                      tool("rate_movie", "Give a movie a rating from 1 to 10."),
                      tool("pick_random", "Pick a random number between two numbers."), *CATALOG])
    for request in ("pick a random number between 1 and 5", "random number 1 5"):
        found = names(index, request)
        assert found[0] == "pick_random" and "timer_set" not in found, request


def test_tools_that_score_alike_come_in_the_order_of_their_names_whatever_order_they_were_indexed_in() -> None:
    # Equal scores came in the order the tools were indexed, which a file replaced changes.
    twins = [tool(f"{letter}_export", "Export the ledger as a spreadsheet.") for letter in "edcba"]
    others = [tool("calendar_sync", "Sync the calendar."), tool("mail_send", "Send an email.")]
    for order in (twins + others, others + twins[::-1], twins[2:] + others + twins[:2]):
        index = index_of(order)
        assert names(index, "export the ledger", limit=3) == ["a_export", "b_export", "c_export"]
        allowed = index.search("export the ledger", 2, allowed=lambda name: name != "a_export").hits
        assert [hit.name for hit in allowed] == ["b_export", "c_export"]


def test_a_name_in_full_width_letters_or_with_an_invisible_character_pasted_in_is_that_name() -> None:
    index = index_of()
    for typed in ("ｈａｓｈｓｕｍ", "hash\u200bsum", "\ufeffhashsum", "ｊｓｏｎｋｉｔ＿ｆｍｔ"):
        found = index.search(typed, 3).hits
        assert found and found[0].score == 1.0, typed
    assert index.search("ｊｓｏｎｋｉｔ＿ｆｍｔ", 3).hits[0].name == "jsonkit_fmt"


def test_a_catalog_folder_ranks_as_it_would_alone_whatever_the_tools_beside_it() -> None:
    """Lengths were normalised against the average of the tools every caller sees (built-ins,
    connected folders) alone: a catalog folder's tools were weighed against the built-ins'
    lengths, so their order on the server differed from the same tools' through
    ``toolbay search --catalog``, and flipped with the built-ins' descriptions."""
    catalog = [
        tool("gcal_create_event", "Create a calendar event: the event goes in the calendar you name, an event "
             "with its title, start, end, attendees, location, description and reminders."),
        tool("outlook_create_event", "Create a calendar event."),
        tool("notes_add", "Add a note."),
    ]
    query = "create a calendar event"

    def found(beside: list[ToolDefinition]) -> list[tuple[str, float]]:
        index = SearchIndex(group_of=lambda key, definition: "catalog" if definition in catalog else "")
        index.put_many([*beside, *catalog])
        hits = index.search(query, 10, groups=["", "catalog"]).hits
        return [(hit.name, round(hit.score, 4)) for hit in hits if hit.name in {t.name for t in catalog}]

    alone = SearchIndex()
    alone.put_many(catalog)
    expected = [(hit.name, round(hit.score, 4)) for hit in alone.search(query, 10).hits]
    short = [tool(f"job_{n}", "Show a job.") for n in range(8)]
    long = [tool(f"job_{n}", "Show a job: " + "its status, its progress and what it said. " * 12) for n in range(8)]
    assert found(short) == found(long) == expected


def test_a_plain_word_that_is_a_tools_name_finds_that_tool_first_and_its_neighbours_after() -> None:
    index = index_of([*CATALOG, tool("weather", "Current weather for a city."),
                      tool("weather_forecast", "Forecast the weather for a city."),
                      tool("weather_alerts", "Severe weather alerts for a region.")])
    found = names(index, "weather")
    assert found[0] == "weather" and {"weather_forecast", "weather_alerts"} <= set(found)
    assert names(index, "weather_forecast") == ["weather_forecast"]  # a name written as one: that tool alone
    camel = index_of([*CATALOG, tool("weatherAlerts", "Severe weather alerts for a region."),
                      tool("weatherAlertsHistory", "Past weather alerts for a region.")])
    assert names(camel, "weatherAlerts") == ["weatherAlerts"]  # camelCase is a name written as one too
    path = index_of([*CATALOG, tool("JSONPath", "Query a JSON document with a JSONPath expression."),
                     tool("json_query", "Query a JSON document.")])
    assert names(path, "JSONPath") == ["JSONPath"]  # capitals then a capitalised word: camelCase too


def test_of_two_tools_that_match_a_request_alike_the_one_it_names_more_fully_comes_first() -> None:
    """A twin whose description repeats the request's words (a greenhouse's humidity level, a
    random DNA sequence) came before the tool the request names: its name's other words
    ("greenhouse", "random") now count against it, and a word the request writes another way
    ("simulated" for simulate_dna_sequence) still names it."""
    humidity = index_of([*CATALOG, tool("get_humidity", "Get the humidity level.", location="A city, or coordinates"),
                         tool("get_greenhouse_humidity", "Get the humidity level of a greenhouse: its humidity level "
                              "now and the level it is kept at.", greenhouse_id="The greenhouse")])
    assert names(humidity, "what is the humidity level where I am")[:2] == ["get_humidity", "get_greenhouse_humidity"]
    dna = index_of([*CATALOG, tool("simulate_dna_sequence", "Simulate a DNA sequence.", length="Bases"),
                    tool("generate_random_sequence", "Generate a random DNA or RNA sequence.", length="Bases")])
    assert names(dna, "generate a simulated DNA sequence")[:2] == ["simulate_dna_sequence", "generate_random_sequence"]


def test_scores_stay_best_first_after_names_are_weighed() -> None:
    index = index_of([*CATALOG, tool("get_humidity", "Get the humidity level."),
                      tool("get_greenhouse_humidity", "Get the humidity level of a greenhouse: its level now.")])
    scores = [hit.score for hit in index.search("humidity level of the air", 10).hits]
    assert len(scores) >= 2 and scores == sorted(scores, reverse=True)


def test_a_searched_index_that_then_changed_scores_as_one_built_whole() -> None:
    """What the index keeps between searches (how rare each word of a name is) follows every
    tool added and removed after them."""
    changing = index_of()
    queries = ("json document", "weather for a city", "get the weather alerts", "count words")
    for query in queries:
        changing.search(query)
    added = [tool(f"weather_tool_{n}", "Another weather helper.") for n in range(6)]
    for definition in added:
        changing.put(definition)
    changing.remove("jsonkit_get")
    whole = index_of([definition for definition in [*CATALOG, *added] if definition.name != "jsonkit_get"])
    for query in queries:
        found, expected = changing.search(query).hits, whole.search(query).hits
        assert [hit.name for hit in found] == [hit.name for hit in expected], query
        # Word weights are made again only when the catalog has drifted a quarter from what they
        # were made with, so scores may differ a little; a name's words go by the live counts.
        assert all(math.isclose(a.score, b.score, rel_tol=0.01) for a, b in zip(found, expected, strict=True)), query


def test_a_word_no_tool_has_finds_the_tools_with_the_two_words_it_is_written_of() -> None:
    # "uppercase this" was no match beside a tool that converts to "upper case".
    case = tool("text_case", "Convert text to upper case or lower case.")
    others = [tool("upload_file", "Upload a file to the server."), tool("book_case", "Order a bookshelf.")]
    assert first_found("uppercase this", case, *others) == "text_case"
    assert first_found("show me the filenames", tool("dir_list", "List the file names in a folder."),
                       *others) == "dir_list"
    # Only words no tool has are cut ("uploads" is a plural of a word a tool has), and only
    # into words some tool has (no tool says "xyz").
    assert names(index_of([case, *others, *CATALOG]), "uploads") == ["upload_file"]
    assert index_of([case, *others, *CATALOG]).search("xyzcase").no_match


def test_two_words_a_tool_writes_as_one_find_it_where_one_of_them_no_tool_has() -> None:
    # "make it upper case" was no match: no tool has "upper" nor "case".
    shout = tool("text_shout", "Convert text to uppercase.")
    others = [tool("book_case", "Order a bookshelf."), tool("lower_price", "Lower a price.")]
    assert first_found("make it upper case", shout) == "text_shout"
    # Both words some tool has: matched as written ("lower" and "case" find their own tools).
    assert "text_lowercase" not in names(index_of([*others, tool("text_lowercase", "Convert text to lowercase."),
                                                   *CATALOG]), "lower case", limit=2)


def test_a_word_is_cut_only_into_words_the_callers_own_tools_have() -> None:
    # A word cut by a hidden group's words would tell the caller what that group contains.
    index = SearchIndex(group_of=lambda key, definition: "hidden" if key == "hidden_case" else "")
    index.put_many([tool("hidden_case", "Convert text to upper case."), tool("notes_add", "Add a note about a case."),
                    tool("reminder", "Remind me later.")])
    assert index.search("uppercase", 5, groups=[""]).no_match
    assert [hit.name for hit in index.search("uppercase", 5, groups=["", "hidden"]).hits][0] == "hidden_case"


def test_the_first_k_results_are_the_first_k_of_all_whatever_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The best tools by words are weighed by their names in a pool a few times the limit (a
    speed choice), and a tool past the pool could score more, its name weighed, than one shown:
    Seal-Tools' roomAvailability was 9th at a limit of 100 and missing at 10. The answer must not
    depend on the pool: here it is shrunk to one tool, so that names reorder what words ranked."""
    import toolbay.search.index as index_module

    monkeypatch.setattr(index_module, "_NAME_POOL", 1)
    monkeypatch.setattr(index_module, "_NAME_POOL_LEAST", 1)
    rng = random.Random(7)
    vocabulary = ["get", "set", "list", "create", "delete", "update", "room", "booking", "hotel", "flight",
                  "weather", "city", "report", "sales", "mail", "user", "order", "price", "stock", "file", "image",
                  "text"]
    for _ in range(8):
        index = index_of([tool("_".join(rng.sample(vocabulary, rng.randint(1, 3))) + f"_{n}",
                               " ".join(rng.choice(vocabulary) for _ in range(rng.randint(3, 12))))
                          for n in range(120)])
        for _ in range(8):
            query = " ".join(rng.sample(vocabulary, rng.randint(2, 4)))
            everything = [(hit.name, hit.score) for hit in index.search(query, 120).hits]
            for limit in (1, 5, 10):
                assert [(hit.name, hit.score) for hit in index.search(query, limit).hits] == everything[:limit], query


def test_a_hindi_or_arabic_request_finds_its_tool_and_not_another_by_a_letter() -> None:
    index = index_of([tool("weather_hi", "मौसम का पूर्वानुमान"), tool("translate_hi", "हिंदी में अनुवाद करें"),
                      tool("translate_ar", "ترجمة النص إلى العربية"), tool("weather_ar", "حالة الطقس")])
    assert names(index, "मौसम") == ["weather_hi"]
    assert names(index, "تَرْجَمَة النص")[0] == "translate_ar"


def _trip_catalog() -> tuple[list[ToolDefinition], list[ToolDefinition]]:
    """The three tools a trip request asks for, and a catalog without them: a dozen services for
    each of its three tasks, alike, and one tool that touches all three but does none of them."""
    asked = [tool("bookFlightTicket", "Book a flight ticket between two airports for a passenger on a date.",
                  origin="Departure airport"),
             tool("reserveHotelRoom", "Reserve a hotel room in a city for given nights.", city="City of the hotel"),
             tool("convertCurrencyAmount", "Convert an amount of money between two currencies at today's rate.",
                  amount="Amount")]
    tasks = {"Flight": ("book a flight between two airports", "origin"),
             "Hotel": ("reserve a hotel room in a city", "city"),
             "Currency": ("convert an amount between two currencies", "amount")}
    kinds = ("Cheap", "Business", "Group", "Last", "Loyalty", "Family", "Student", "Weekend", "Premium",
             "Flexible", "Seasonal", "Corporate")
    others = [tool(f"{kind.lower()}{task}", f"{kind} {task.lower()} service: {what}.", **{parameter: "A value"})
              for task, (what, parameter) in tasks.items() for kind in kinds]
    others.append(tool("travelDesk", "Information on flight tickets, hotel rooms and currency rates.", city="City"))
    return asked, others


TRIP = ("I am planning a trip to Lisbon next month. Please book a flight ticket from Berlin to Lisbon for me "
        "on the 12th. Then reserve a hotel room in Lisbon for three nights. Finally convert 500 euros to US "
        "dollars at today's rate.")


def test_a_request_of_several_sentences_none_of_whose_tools_is_there_is_no_match() -> None:
    """Each sentence asks for one thing, and a dozen alike tools answer each about equally: none
    leads any sentence. As a whole, the tool that touches every sentence vaguely (travelDesk)
    led the rest, and was the answer: padding. With the tools asked for there, each leads its
    sentence, and they are the answer."""
    asked, others = _trip_catalog()
    outcome = index_of(others).search(TRIP, 5)
    assert outcome.no_match and outcome.hits == ()
    assert {hit.name for hit in index_of([*asked, *others]).search(TRIP, 5).hits[:3]} == {t.name for t in asked}


def test_what_a_callers_groups_see_follows_every_change_of_the_index() -> None:
    """What a set of groups sees (its tools, each word's rarity among them) is kept from one
    search to the next; a tool added, replaced, moved to another group or removed must show in
    the next search at once, as if nothing had been kept."""
    group_of_key = {"notes_add": "", "mail_send": "", "vault_open": "hidden"}
    index = SearchIndex(group_of=lambda key, definition: group_of_key.get(key, ""))
    index.put_many([tool("notes_add", "Add a note."), tool("mail_send", "Send a mail."),
                    tool("vault_open", "Open the vault of secrets.")])
    seen = ["", "personal:caller"]

    def found(query: str) -> list[str]:
        return [hit.name for hit in index.search(query, 5, groups=seen).hits]

    assert found("open the vault") == [] and found("send a mail") == ["mail_send"]
    index.put(tool("vault_peek", "Open the vault of secrets to look."))  # a new tool in a group seen
    assert found("open the vault") == ["vault_peek"]
    group_of_key["vault_open"] = ""  # put again, now in a group seen
    index.put(tool("vault_open", "Open the vault of secrets."))
    assert set(found("open the vault")) == {"vault_open", "vault_peek"}
    group_of_key["vault_peek"] = "hidden"  # put again, now hidden
    index.put(tool("vault_peek", "Open the vault of secrets to look."))
    assert found("open the vault") == ["vault_open"]
    index.remove("vault_open")
    assert found("open the vault") == []
    # A word's rarity among the tools seen: the same score as an index of those tools alone.
    alone = SearchIndex()
    alone.put_many([tool("notes_add", "Add a note."), tool("mail_send", "Send a mail.")])
    assert [(h.name, h.score) for h in index.search("send a mail", 5, groups=seen).hits] == \
        [(h.name, h.score) for h in alone.search("send a mail", 5).hits]


def test_a_callers_groups_see_the_weights_of_tools_weighed_again_without_a_change() -> None:
    """``put_many`` of no tool weighs every tool again at the groups' averages of now (a few tools
    put one by one are weighed at those of before, until the averages drift): the next search
    for a caller's groups must use the new weights. What the groups saw was kept until a tool
    came or went, and such a search still ranked by the weights of before: two tools changed
    places against an index filled at once, and against the same search for every group."""
    rng = random.Random(1)
    group_of_key = {f"tool{n}": "ab"[n % 2] for n in range(40)} | {f"long{n}": "a" for n in range(3)}
    words = ["alpha", "beta", "gamma", "delta", "convert", "file", "json"]
    tools = [tool(f"tool{n}", " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))) for n in range(40)]
    longer = [tool(f"long{n}", "alpha " * 3 + "word " * 10) for n in range(3)]
    index = SearchIndex(group_of=lambda key, definition: group_of_key[key])
    index.put_many(tools)
    for definition in longer:
        index.put(definition)
    assert index.search("alpha convert", 10, groups=["a", "b"]).hits  # seen by a caller's groups
    index.put_many([])
    at_once = SearchIndex(group_of=lambda key, definition: group_of_key[key])
    at_once.put_many([*tools, *longer])
    for groups in (["a", "b"], ["a"]):
        assert [(hit.name, hit.score) for hit in index.search("alpha convert", 10, groups=groups).hits] == \
            [(hit.name, hit.score) for hit in at_once.search("alpha convert", 10, groups=groups).hits]


def test_a_team_of_callers_without_tools_of_their_own_share_what_their_groups_see() -> None:
    """Each caller's groups name its own personal tools ("personal:ID"), which most callers do not
    have: a team of twenty such callers of the same scopes was kept as twenty sets of groups, past
    the sixteen kept, so each search worked out again what the groups see (at 5,000 tools, 64
    such callers took 0.71 ms of CPU a search, p50, one caller 0.39). They are one set now; a
    caller whose first personal tool comes sees it at its next search."""
    group_of_key = {"vault_open": "catalog:vault", "notes_add": ""}
    index = SearchIndex(group_of=lambda key, definition: group_of_key[key])
    index.put_many([tool("notes_add", "Add a note."), tool("vault_open", "Open the vault.")])
    for caller in range(20):
        hits = index.search("open the vault", 5, groups=["", f"personal:u{caller}", "catalog:vault"]).hits
        assert [hit.name for hit in hits] == ["vault_open"]
    assert len(index._sights) == 1
    group_of_key["vault_peek"] = "personal:u3"
    index.put(tool("vault_peek", "Peek into the vault to open it."))
    assert {hit.name for hit in index.search("open the vault", 5, groups=["", "personal:u3", "catalog:vault"]).hits} \
        == {"vault_open", "vault_peek"}
    assert [hit.name for hit in index.search("open the vault", 5, groups=["", "personal:u4", "catalog:vault"]).hits] \
        == ["vault_open"]


def test_a_callers_requests_of_words_no_tool_has_keep_nothing_in_the_index() -> None:
    """What the index keeps for a caller's groups between searches is bounded by the words its
    tools have: requests of random words (a hostile caller) must not grow it, whatever their number.
    (Kept for each word of a request, 60,000 of them took 11.6 MB, 30,000 of them 7.0 MB; the
    tokenizer's and the stemmer's bounded caches (16,384 entries each), filled first, move by
    2.5 MB as they turn over, after 30,000 words as after 120,000. 30,000 words, not more: each
    costs ~0.1 ms of processor time while memory is traced.)"""
    import tracemalloc

    index = SearchIndex(group_of=lambda key, definition: "hidden" if key == "vault_open" else "")
    index.put_many([*CATALOG, tool("vault_open", "Open the vault.")])
    rng = random.Random(3)

    def requests(words: int) -> None:
        for _ in range(words // 50):
            # Past the longest word the index tries to cut in two: no time spent on that.
            request = " ".join("".join(rng.choices("bcdfghjklmnpqrstvwxz", k=40)) for _ in range(50))
            index.search(request, 5, groups=["", "personal:caller"])

    requests(20_000)  # the tokenizer's and the stemmer's caches filled first
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        requests(30_000)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 6_000_000, f"{grown:,} bytes kept after 30,000 words no tool has"


def test_what_is_kept_for_callers_groups_is_bounded_however_many_groups_and_words_they_ask(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept for each set of groups, each word's rarity among their tools: a bound on both, or a
    team of many callers, each with its own scopes, asking every word the tools have, would
    grow the server by a few MB a caller."""
    import toolbay.search.index as index_module

    monkeypatch.setattr(index_module, "_MOST_SIGHTS", 3)
    monkeypatch.setattr(index_module, "_MOST_SIGHT_TERMS", 20)
    words = [f"word{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(200)]
    index = SearchIndex(group_of=lambda key, definition: key.split("_")[0])
    index.put_many([tool(f"g{n % 8}_{word}", f"Handle the {word} of a {words[(n + 1) % 200]}.")
                    for n, word in enumerate(words)])
    expected = {}
    for n, word in enumerate(words):
        # Two sets of groups most of the time (kept, their words pile up), others now and then.
        groups = [f"g{n % 8}"] if n % 10 == 0 else ["g0", "g1", "g2", "g3"] if n % 2 else ["g4", "g5", "g6", "g7"]
        hits = [hit.name for hit in index.search(f"handle the {word}", 3, groups=groups).hits]
        expected[(word, tuple(groups))] = hits
        assert len(index._sights) <= 3 and all(len(sight.terms) <= 20 for sight in index._sights.values())
    # What was dropped is worked out again alike: the same answers from an index that kept nothing.
    fresh = SearchIndex(group_of=lambda key, definition: key.split("_")[0])
    fresh.put_many([tool(f"g{n % 8}_{word}", f"Handle the {word} of a {words[(n + 1) % 200]}.")
                    for n, word in enumerate(words)])
    for (word, groups), hits in expected.items():
        assert [hit.name for hit in fresh.search(f"handle the {word}", 3, groups=list(groups)).hits] == hits
