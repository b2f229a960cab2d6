"""The rubric packs beside this file, validated: written by
`python -m evalgate.rubrics.compile_packs` from their YAML, which stays the source
(tests/test_rubric_packs.py holds the two equal). A pack is taken from here only while its YAML has
the SHA-256 recorded with it; otherwise it is validated from the YAML, so an edited pack is never
stale. Loading the packs this way keeps pydantic out of a run that validates no file of the user's
(docs/scale.md). Do not edit by hand."""

from __future__ import annotations

from evalgate.rubric import *  # noqa: F403
from evalgate.rubrics.params import *  # noqa: F403

PACKS = {
    'knowledge-work': (
        '5b124c7349c3fb7e28d77c6895a1259eade724276f489ebfc089ebe59cc576e1',
        Rubric(id='knowledge-work',
               title='Knowledge-work response quality',
               description="A response answers one person's question in their situation, using the "
                           'materials provided. It is judged on whether it covers what matters, states the '
                           'materials correctly, connects them, weighs them sensibly, leads to action and '
                           'is easy to follow.',
               scale=Scale(min=1, max=5),
               dimensions=(Dimension(id='completeness',
                                     kind='judge',
                                     title='Completeness',
                                     description='The response covers every fact in the materials that '
                                                 'bears on the question.',
                                     hard_fail=False,
                                     anchors={5: 'Every material fact that bears on the question is used; '
                                                 'nothing important is left out.',
                                              4: 'One minor relevant fact is left out; the answer does not '
                                                 'depend on it.',
                                              3: 'One important fact is left out, or several minor ones.',
                                              2: 'Several important facts are left out; the answer rests '
                                                 'on part of the materials.',
                                              1: 'The materials are largely ignored.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='accuracy',
                                     kind='judge',
                                     title='Accuracy',
                                     description='What the response says about the materials and the '
                                                 'situation is true to them.',
                                     hard_fail=False,
                                     anchors={5: 'Every figure and claim matches the materials; nothing is '
                                                 'invented.',
                                              4: 'One small imprecision that changes no conclusion.',
                                              3: 'One misstatement that weakens a conclusion, or an '
                                                 'unsupported figure presented as fact.',
                                              2: 'Several misstatements, or one that reverses what a '
                                                 'material says.',
                                              1: 'Central claims contradict the materials or are '
                                                 'invented.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='synthesis',
                                     kind='judge',
                                     title='Synthesis',
                                     description='The response connects the materials to each other and to '
                                                 'the question, and reconciles conflicts.',
                                     hard_fail=False,
                                     anchors={5: 'Materials are combined into one reasoned picture; '
                                                 'conflicts between them are named and resolved.',
                                              4: 'Materials are combined; a minor tension is left '
                                                 'unaddressed.',
                                              3: 'Materials are summarised one by one with little '
                                                 'connection between them.',
                                              2: 'A conflict between materials is missed and leads the '
                                                 'answer astray.',
                                              1: 'No synthesis; the materials are restated or ignored.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='judgment',
                                     kind='judge',
                                     title='Judgment',
                                     description='The response weighs options, risks and trade-offs and '
                                                 'reaches a sound position.',
                                     hard_fail=False,
                                     anchors={5: 'Takes a clear, defensible position and names its main '
                                                 'risk and how to contain it.',
                                              4: 'A sound position with a risk or trade-off underplayed.',
                                              3: 'A position with weak reasoning, or a sound analysis that '
                                                 'stops short of a position.',
                                              2: 'A position the materials argue against, or a hedge that '
                                                 'leaves the decision to the reader.',
                                              1: 'A harmful or reckless recommendation.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='actionability',
                                     kind='judge',
                                     title='Actionability',
                                     description='The person can act on the response today.',
                                     hard_fail=False,
                                     anchors={5: 'Concrete next steps with owners or order, tied to the '
                                                 'decision.',
                                              4: 'Concrete next steps; one is vague.',
                                              3: 'Steps are given but generic, or not tied to the '
                                                 'decision.',
                                              2: 'Mostly advice without steps.',
                                              1: 'Nothing the person could act on.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='structure',
                                     kind='judge',
                                     title='Structure',
                                     description='The response is organised so the person finds the answer '
                                                 'and its reasons quickly.',
                                     hard_fail=False,
                                     anchors={5: 'The answer comes first, then reasons and steps, each '
                                                 'easy to find.',
                                              4: 'Well organised; the answer takes a moment to find.',
                                              3: 'Organised but padded, or the answer is buried.',
                                              2: 'Hard to follow; reasons and answer are interleaved.',
                                              1: 'No discernible organisation.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None)),
               policy=Policy(fail_on_score=None,
                             min_each=None,
                             min_mean=3.5,
                             hard_fail_below=1,
                             bands=Bands(floors={'PASS_STRONG': 4.0,
                                                 'PASS_ADEQUATE': 3.5,
                                                 'FAIL_WEAK': 2.5,
                                                 'FAIL_CRITICAL': 0.0}),
                             ensemble=Ensemble(aggregation='mean',
                                               strict_pass_judges=2,
                                               strict_pass_mean=3.5,
                                               critical_fail_below=2.0,
                                               fail_judges=2,
                                               fail_below=3.0,
                                               on_judge_error='fail',
                                               quorum=2)),
               judging=Judging(template='likert-json-knowledge.md.j2',
                               reply='json',
                               instructions='You review one response written for a person in a work '
                                            'situation. You are told who they are, the situation, their '
                                            'question and the materials they had; judge the response '
                                            'against those alone.'),
               inputs=Inputs(format='yaml',
                             parts=(InputPart(name='persona', description='who asks', required=True),
                                    InputPart(name='scenario',
                                              description='the situation they are in',
                                              required=True),
                                    InputPart(name='question', description='what they ask', required=True),
                                    InputPart(name='materials',
                                              description='the material the response should use: a list of '
                                                          '{name, text}',
                                              required=True),
                                    InputPart(name='response',
                                              description='the response under evaluation (markdown)',
                                              required=True))),
               calibration=CalibrationFloors(exact=0.6, within_one=0.9, kappa=0.4, kappa_kind=None)),
    ),
    'research-loop': (
        'fc7251ee1e7dcf27507626ee6030eb85b4f84a166889dff7d7fc8abe82e239e0',
        Rubric(id='research-loop',
               title='Research loop item quality',
               description='A completed research item answers one question with labelled, sourced claims. '
                           'The Findings section must open with a falsifiable answer, list 6-12 specific '
                           'Key Findings each mapped in the Evidence Map, expand every acronym at its '
                           'first use, and bind every claim to a source that supports it.',
               scale=Scale(min=1, max=5),
               dimensions=(Dimension(id='section_presence',
                                     kind='deterministic',
                                     title='Required sections present',
                                     description='Every heading the template requires is present (Research '
                                                 'Question, Scope, Context, Approach, Sources, Research '
                                                 'Skill Output with §0-§7, Findings with Executive '
                                                 'Summary, Key Findings, Evidence Map, Assumptions, '
                                                 'Analysis, Risks/Gaps/Uncertainties, Open Questions, and '
                                                 "Output), and none still holds the template's placeholder "
                                                 'text (its instruction sentences, a lone `-`, `TITLE`, '
                                                 'the empty Evidence Map row). Headings match at any level '
                                                 'by normalised title; `Question / Hypothesis` stands for '
                                                 'Research Question and `Section 6` for `§6`. A missing '
                                                 'Research Skill Output counts once, not once per step.',
                                     hard_fail=False,
                                     anchors={5: 'Every required section is present and filled in.',
                                              4: "One minor section (outside Findings' core) is missing or "
                                                 'still template text.',
                                              3: 'Two minor sections are missing or still template text.',
                                              2: 'Three or more sections are missing or template text, or '
                                                 'one core Findings section is.',
                                              1: 'The Findings section or two or more of its core '
                                                 'subsections (Executive Summary, Key Findings, Evidence '
                                                 'Map) are missing or template text.'},
                                     examples=(),
                                     mechanical=None,
                                     params=SectionPresenceParams(required=(RequiredSectionSpec(title='Research '
                                                                                                      'Question',
                                                                                                level=2,
                                                                                                aliases=('Question '
                                                                                                         '/ '
                                                                                                         'Hypothesis',),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Scope',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Context',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Approach',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Sources',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Research '
                                                                                                      'Skill '
                                                                                                      'Output',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=True,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='§0 '
                                                                                                      'Initialise',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§1 '
                                                                                                      'Question '
                                                                                                      'Decomposition',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§2 '
                                                                                                      'Investigation',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§3 '
                                                                                                      'Reasoning',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§4 '
                                                                                                      'Consistency '
                                                                                                      'Check',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§5 '
                                                                                                      'Depth '
                                                                                                      'and '
                                                                                                      'Breadth '
                                                                                                      'Expansion',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§6 '
                                                                                                      'Synthesis',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='§7 '
                                                                                                      'Recursive '
                                                                                                      'Review',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Research '
                                                                                                       'Skill '
                                                                                                       'Output'),
                                                                            RequiredSectionSpec(title='Findings',
                                                                                                level=2,
                                                                                                aliases=(),
                                                                                                core=True,
                                                                                                container=True,
                                                                                                within=None),
                                                                            RequiredSectionSpec(title='Executive '
                                                                                                      'Summary',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=True,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Key '
                                                                                                      'Findings',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=True,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Evidence '
                                                                                                      'Map',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=True,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Assumptions',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Analysis',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Risks, '
                                                                                                      'Gaps, '
                                                                                                      'and '
                                                                                                      'Uncertainties',
                                                                                                level=3,
                                                                                                aliases=('Risks '
                                                                                                         'Gaps '
                                                                                                         'Uncertainties',),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Open '
                                                                                                      'Questions',
                                                                                                level=3,
                                                                                                aliases=(),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within='Findings'),
                                                                            RequiredSectionSpec(title='Output',
                                                                                                level=2,
                                                                                                aliases=('Output '
                                                                                                         'Section',),
                                                                                                core=False,
                                                                                                container=False,
                                                                                                within=None)),
                                                                  placeholders=('State the specific, '
                                                                                'answerable question this '
                                                                                'research addresses',
                                                                                'Restate the research '
                                                                                'question. Confirm scope',
                                                                                'Why is this question '
                                                                                'worth answering now?',
                                                                                'Decompose the question '
                                                                                'into sub-questions and '
                                                                                'describe how each will be '
                                                                                'investigated',
                                                                                'Approach sub-questions '
                                                                                'broken into atomic '
                                                                                'questions',
                                                                                'Evidence gathered per '
                                                                                'atomic question. Label '
                                                                                'each claim',
                                                                                'Facts, inferences, and '
                                                                                'assumptions explicitly '
                                                                                'separated.',
                                                                                'Internal contradictions '
                                                                                'identified and resolved '
                                                                                '(or explicitly flagged',
                                                                                'Findings re-examined '
                                                                                'through relevant lenses',
                                                                                'Final pass: every section '
                                                                                'justified, all threads '
                                                                                'synthesised',
                                                                                'What is the answer to the '
                                                                                'research question? State '
                                                                                'the key conclusion '
                                                                                'directly.',
                                                                                'Claim text as a complete '
                                                                                'sentence',
                                                                                'Explicit assumptions made '
                                                                                'during the investigation '
                                                                                'and the justification for '
                                                                                'each.',
                                                                                '**Assumption:** ... '
                                                                                '**Justification:** ...',
                                                                                'How the evidence was '
                                                                                'weighed, what trade-offs '
                                                                                'were identified',
                                                                                'What is still unknown? '
                                                                                'Where does the evidence '
                                                                                'fall short?',
                                                                                'Questions that surfaced '
                                                                                'during research but are '
                                                                                'out of scope for this '
                                                                                'item.',
                                                                                '[Smith et al. (YYYY) '
                                                                                'Source '
                                                                                'Title](https://url)',
                                                                                '[Organisation '
                                                                                'Title](https://url) — '
                                                                                'brief description')),
                                     group=None),
                           Dimension(id='evidence_map_coverage',
                                     kind='deterministic',
                                     title='Every Key Finding appears in the Evidence Map',
                                     description='The Evidence Map table has a row for every Key Finding, '
                                                 "each row's source cell carries a URL or DOI, and each "
                                                 'claim cell begins with [fact], [inference] or '
                                                 '[assumption]. A finding has a row when they share enough '
                                                 'content words (rows may paraphrase and shorten); with '
                                                 'fewer rows than findings the difference is uncovered '
                                                 'regardless.',
                                     hard_fail=True,
                                     anchors={5: 'Every Key Finding has a row; every row has a URL-backed '
                                                 'source and an epistemic label.',
                                              4: 'Every Key Finding has a row; one or two rows lack a '
                                                 'URL-backed source or a leading label.',
                                              3: 'Every Key Finding has a row; three or more rows lack a '
                                                 'URL-backed source or label.',
                                              2: 'One Key Finding has no row in the Evidence Map.',
                                              1: 'Two or more Key Findings have no row, or there is no '
                                                 'Evidence Map table.'},
                                     examples=(),
                                     mechanical=None,
                                     params=EvidenceMapCoverageParams(match_threshold=0.34,
                                                                      order_threshold=0.15),
                                     group=None),
                           Dimension(id='key_finding_word_count',
                                     kind='deterministic',
                                     title='Six to twelve complete Key Findings of at least 20 words',
                                     description='Key Findings is an ordered list of 6-12 items, each a '
                                                 'complete sentence of at least 20 words (not counting its '
                                                 'label/confidence/source parts, URLs or markup; a word is '
                                                 'a whitespace token with a letter or digit).',
                                     hard_fail=False,
                                     anchors={5: '6-12 findings, every one at least 20 words.',
                                              4: '6-12 findings, one under 20 words.',
                                              3: '6-12 findings with two under 20 words, or a count just '
                                                 'outside 6-12 (5 or 13) with none short.',
                                              2: 'Three or more findings under 20 words, a count of 3-4 or '
                                                 '14+, or a count of 5 or 13 with any under 20 words.',
                                              1: 'No Key Findings list, or fewer than 3 findings.'},
                                     examples=(),
                                     mechanical=None,
                                     params=KeyFindingWordCountParams(min_words=20,
                                                                      min_findings=6,
                                                                      max_findings=12),
                                     group=None),
                           Dimension(id='source_consultation',
                                     kind='deterministic',
                                     title='Sources consulted, and every cited URL listed in Sources',
                                     description='Every entry of Sources is consulted (its box ticked, or '
                                                 'its URL cited in Research Skill Output or Findings) or '
                                                 'says why not (a stated reason on the entry, a label such '
                                                 'as "Identified but not consulted" over it, or a [ ] item '
                                                 'in the body that lists it); every entry has a URL; and '
                                                 'every URL cited inline in Research Skill Output or '
                                                 "Findings has an entry in Sources (the protocol's rule "
                                                 '2d1). URLs compare without scheme, `www.`, case, '
                                                 'trailing `/`, fragment, %-escapes and tracking '
                                                 'parameters; a DOI or arXiv identifier the document '
                                                 'states ties a landing page to its PDF or doi.org link. A '
                                                 'box that contradicts the body is a notice, not a lower '
                                                 'score. The score is the lower of the anchors the sources '
                                                 'and the cited URLs each reach.',
                                     hard_fail=False,
                                     anchors={5: 'Every source is consulted or says why not, each has a '
                                                 'URL, and every URL cited inline has a Sources entry.',
                                              4: 'One or two sources are neither consulted nor explained '
                                                 '(or have no URL), or a few URLs cited inline (at most '
                                                 'three, or a tenth of those cited) have no Sources entry.',
                                              3: 'Three or more sources are neither consulted nor '
                                                 'explained, or more URLs cited inline have no Sources '
                                                 'entry (up to half of those cited).',
                                              2: 'More than half of the sources are neither consulted nor '
                                                 'explained, or more than half of the URLs cited inline '
                                                 'have no Sources entry.',
                                              1: 'There is no Sources list, or no listed source is '
                                                 'consulted.'},
                                     examples=(),
                                     mechanical=None,
                                     params=SourceConsultationParams(reasons=('not consulted',
                                                                              'unconsulted',
                                                                              'not used',
                                                                              'unused',
                                                                              'not accessed',
                                                                              'not directly accessed',
                                                                              'not directly consulted',
                                                                              'not obtained',
                                                                              'not accessible',
                                                                              'inaccessible',
                                                                              'not available',
                                                                              'unavailable',
                                                                              'not separately consulted',
                                                                              'not directly',
                                                                              'not retriev*',
                                                                              'not fetched',
                                                                              'fetch failed',
                                                                              'not reachable',
                                                                              'unreachable',
                                                                              'not machine-readable',
                                                                              'not quoted',
                                                                              'not quotable',
                                                                              'could not',
                                                                              "couldn't",
                                                                              'unable to',
                                                                              'failed to',
                                                                              'paywall*',
                                                                              'access-gated',
                                                                              'access restricted',
                                                                              'restricted access',
                                                                              'access denied',
                                                                              'access remained',
                                                                              'blocked',
                                                                              'login required',
                                                                              'requires login',
                                                                              'requires authentication',
                                                                              'without authentication',
                                                                              'private repo*',
                                                                              'status code',
                                                                              'returned 401',
                                                                              'returned 403',
                                                                              'returned 404',
                                                                              'returned 429',
                                                                              'returned 500',
                                                                              'returned 503',
                                                                              'HTTP 401',
                                                                              'HTTP 403',
                                                                              'HTTP 404',
                                                                              'HTTP 429',
                                                                              'page not found',
                                                                              'page-not-found',
                                                                              'dead link',
                                                                              'broken link',
                                                                              'JavaScript-rendered',
                                                                              'JS-rendered',
                                                                              'superseded',
                                                                              'replaced by',
                                                                              'replaced with',
                                                                              'replacement for',
                                                                              'substitute*',
                                                                              'instead',
                                                                              'rather than',
                                                                              'rely on',
                                                                              'relies on',
                                                                              'no stable URL',
                                                                              'no URL',
                                                                              'metadata only',
                                                                              'no extractable',
                                                                              'did not yield',
                                                                              'did not resolve',
                                                                              'unrelated',
                                                                              'not indexed',
                                                                              'not yet',
                                                                              'out of scope',
                                                                              'checked',
                                                                              'identified but',
                                                                              'attempted',
                                                                              'accessed via',
                                                                              'referenced via',
                                                                              'covered via',
                                                                              'via secondary',
                                                                              'via prior',
                                                                              'locator only',
                                                                              'bibliographic locator',
                                                                              'for provenance',
                                                                              'in this session',
                                                                              'in this runtime',
                                                                              'in this environment',
                                                                              'not for',
                                                                              'placeholder',
                                                                              'no directly relevant',
                                                                              'no relevant',
                                                                              'more specific',
                                                                              'not content-rich',
                                                                              'completed version'),
                                                                     not_consulted_labels=('not consulted',
                                                                                           'unconsulted',
                                                                                           'not used',
                                                                                           'unused',
                                                                                           'not accessed',
                                                                                           'not directly '
                                                                                           'accessed',
                                                                                           'not directly '
                                                                                           'consulted',
                                                                                           'not obtained',
                                                                                           'not accessible',
                                                                                           'inaccessible',
                                                                                           'not available',
                                                                                           'unavailable'),
                                                                     access_notes=('access note',
                                                                                   'failed_primary_search',
                                                                                   'failed primary search',
                                                                                   'returned 401',
                                                                                   'returned 403',
                                                                                   'returned 404',
                                                                                   'returned 410',
                                                                                   'returned 429',
                                                                                   'returned 500',
                                                                                   'returned 502',
                                                                                   'returned 503',
                                                                                   'returned HTTP',
                                                                                   'returned status',
                                                                                   'in this session',
                                                                                   'during this session',
                                                                                   'in this runtime',
                                                                                   'in this environment',
                                                                                   'from this environment',
                                                                                   'at retrieval time',
                                                                                   'redirects to',
                                                                                   'redirected to',
                                                                                   'was inaccessible',
                                                                                   'were inaccessible',
                                                                                   'could not be retrieved',
                                                                                   'could not be read',
                                                                                   'could not be accessed',
                                                                                   'could not be fetched',
                                                                                   'page not found',
                                                                                   'dead link',
                                                                                   'search note',
                                                                                   'source correction',
                                                                                   'source replacement',
                                                                                   'source_replacement',
                                                                                   'pointed to an '
                                                                                   'unrelated',
                                                                                   'resolves to an '
                                                                                   'unrelated',
                                                                                   'resolved to an '
                                                                                   'unrelated')),
                                     group=None),
                           Dimension(id='acronym_expansion',
                                     kind='deterministic',
                                     title='Acronyms expanded at first use',
                                     description='Every acronym is expanded as `Full Name (ABBR)` at its '
                                                 "first use in the whole document (the protocol's "
                                                 'most-failed table included, with its required '
                                                 'expansions). The name written before the parenthesis '
                                                 'counts whatever its initials (Web Ontology Language '
                                                 "(OWL), YAML Ain't Markup Language (YAML)), and a group "
                                                 'is expanded part by part (continuous integration and '
                                                 'continuous delivery (CI/CD)). The reversed order `(ABBR, '
                                                 'Full Name)` is wrong, and `ABBR (Full Name)` (a list '
                                                 "such as SOLID's too) is not the protocol's form. A token "
                                                 'that is part of a name (EUR-Lex, OWL 2 RL) is no use of '
                                                 'an acronym the text never uses alone; audit notes that '
                                                 'talk about the acronyms, code, URLs, HTML comments and '
                                                 'front matter are not read (rules: docs/checks.md).',
                                     hard_fail=True,
                                     anchors={5: 'Every acronym is expanded as Full Name (ABBR) at its '
                                                 'first use.',
                                              4: 'One acronym is used before (or without) its expansion.',
                                              3: 'Two acronyms are used before (or without) their '
                                                 'expansion.',
                                              2: 'Three or four acronyms are unexpanded at first use, or '
                                                 'an expansion is reversed.',
                                              1: 'Five or more acronyms are unexpanded at first use.'},
                                     examples=(),
                                     mechanical=None,
                                     params=AcronymExpansionParams(sections=(),
                                                                   required={'LLM': 'Large Language Model',
                                                                             'API': 'Application '
                                                                                    'Programming Interface',
                                                                             'CLI': 'Command Line '
                                                                                    'Interface',
                                                                             'SDK': 'Software Development '
                                                                                    'Kit',
                                                                             'PAT': 'Personal Access Token',
                                                                             'MCP': 'Model Context '
                                                                                    'Protocol',
                                                                             'RAG': 'Retrieval-Augmented '
                                                                                    'Generation',
                                                                             'CoT': 'chain-of-thought',
                                                                             'SRE': 'Site Reliability '
                                                                                    'Engineering',
                                                                             'ITSM': 'IT Service '
                                                                                     'Management',
                                                                             'PaaS': 'Platform as a '
                                                                                     'Service',
                                                                             'MECE': 'Mutually Exclusive, '
                                                                                     'Collectively '
                                                                                     'Exhaustive',
                                                                             'PR': 'pull request',
                                                                             'MBPP': 'Mostly Basic Python '
                                                                                     'Problems',
                                                                             'D3': 'Data-Driven Documents'},
                                                                   understood=(),
                                                                   expansions={},
                                                                   missing_letters=1,
                                                                   profiles={'OWL': ('DL',
                                                                                     'EL',
                                                                                     'QL',
                                                                                     'RL')},
                                                                   audit_phrases=('acronym',
                                                                                  'abbreviation',
                                                                                  'initialism',
                                                                                  'unexpanded',
                                                                                  'not expanded',
                                                                                  'expanded as',
                                                                                  'expanded at',
                                                                                  'expanded in',
                                                                                  'expanded on',
                                                                                  'expanded first'),
                                                                   fix_leaves_lines_with=('acronym',
                                                                                          'abbreviat',
                                                                                          'initialism',
                                                                                          'expan')),
                                     group=None),
                           Dimension(id='executive_summary_first_sentence',
                                     kind='judge',
                                     title='Executive Summary opens with a falsifiable answer',
                                     description='The first sentence of the Executive Summary states the '
                                                 'answer to the research question as a specific, '
                                                 'falsifiable claim: not a restatement of the question, '
                                                 'not a description of what the item covers, not a hedged '
                                                 '"it depends". If genuinely uncertain, it states the '
                                                 'best-supported conclusion followed by the primary '
                                                 'uncertainty.',
                                     hard_fail=True,
                                     anchors={5: 'A specific, falsifiable answer that a source or test '
                                                 'could contradict, naming the concrete subject and '
                                                 'outcome.',
                                              4: 'A clear answer with a concrete claim, slightly broad or '
                                                 'missing one qualifier.',
                                              3: 'An answer is present but vague enough that it is hard to '
                                                 'falsify.',
                                              2: 'Mostly describes what the item covers or hedges ("it '
                                                 'depends") with only a hint of an answer.',
                                              1: 'Restates the question or describes the document; no '
                                                 'answer at all.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='claim_source_accuracy',
                                     kind='judge',
                                     title='Claims are supported by the sources bound to them',
                                     description='Each factual claim in Findings binds a source (URL) that '
                                                 'plausibly supports exactly what is asserted; '
                                                 'high-confidence findings cite at least two independent '
                                                 'sources; no claim overstates what its source can show.',
                                     hard_fail=False,
                                     anchors={5: 'Every checked claim binds an apt source; confidence '
                                                 'matches the number and independence of sources.',
                                              4: "One claim's source is weak or only partly supports it.",
                                              3: 'Several claims overstate their sources or carry high '
                                                 'confidence on a single source.',
                                              2: 'Many claims lack a supporting source or cite sources '
                                                 'that do not address them.',
                                              1: 'Claims are largely unsourced or contradicted by their '
                                                 'own sources.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='epistemic_labeling',
                                     kind='judge',
                                     title='[fact] / [inference] / [assumption] used correctly',
                                     description='Every claim-bearing sentence in Findings carries the '
                                                 'right epistemic label as a suffix: [fact] only for what '
                                                 'a cited source states directly, [inference] for '
                                                 'conclusions drawn from evidence (comparisons, rankings, '
                                                 'syntheses), [assumption] for unverified premises with a '
                                                 'justification.',
                                     hard_fail=False,
                                     anchors={5: 'Labels present on every claim and each matches what the '
                                                 'evidence supports.',
                                              4: 'Labels present; one claim is labelled [fact] where '
                                                 '[inference] is due (or similar).',
                                              3: 'A few claims unlabelled or mislabelled.',
                                              2: 'Labels are often missing or used as decoration.',
                                              1: 'No meaningful epistemic labelling.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='key_finding_specificity',
                                     kind='judge',
                                     title='Key Findings are specific, not generic',
                                     description='Each Key Finding is a specific, evidence-backed claim '
                                                 "about this question's subject: it names the mechanism, "
                                                 'quantity or condition, and it is not a reformulation of '
                                                 'the question or a truism that would fit any research '
                                                 'item.',
                                     hard_fail=False,
                                     anchors={5: 'Every finding is specific to the question and states a '
                                                 'concrete, checkable claim.',
                                              4: 'One finding is generic or a restatement.',
                                              3: 'Two or three findings are generic or restatements.',
                                              2: 'Most findings are generic.',
                                              1: 'Findings are labels or restatements without claims.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None)),
               policy=Policy(fail_on_score=1,
                             min_each=3,
                             min_mean=4.0,
                             hard_fail_below=3,
                             bands=None,
                             ensemble=Ensemble(aggregation='mean',
                                               strict_pass_judges=None,
                                               strict_pass_mean=None,
                                               critical_fail_below=None,
                                               fail_judges=None,
                                               fail_below=None,
                                               on_judge_error='fail',
                                               quorum=1)),
               judging=Judging(template='likert-table.md.j2',
                               reply='table',
                               instructions='You review one completed research item written to a research '
                                            'protocol. Judge only the dimensions listed. Each Key Finding '
                                            'is meant to be a specific, evidence-backed claim with an '
                                            'epistemic label ([fact], [inference] or [assumption]), a '
                                            'confidence level and URL-backed sources.'),
               inputs=None,
               calibration=CalibrationFloors(exact=0.6, within_one=0.9, kappa=0.4, kappa_kind=None)),
    ),
    'research-review': (
        '09adf854646ef6e7e7d087b4d67cd7ae10807b0dd55c24c4f31b970e2ffc0666',
        Rubric(id='research-review',
               title='Research item review',
               description="A research item reviewed as the research protocol's review prompt reviews it: "
                           'citation discipline, speculation control, AI-slop removal and peer review. '
                           'Each criterion is met (1) or violated (0); the item passes only when every '
                           'criterion is met.',
               scale=Scale(min=0, max=1),
               dimensions=(Dimension(id='acronym_expansion',
                                     kind='deterministic',
                                     title='Acronyms expanded at first use',
                                     description='Every acronym or initialism is expanded as `Full Name '
                                                 '(ABBR)` at its first use in the whole document (the '
                                                 "research-loop rubric's check, with its rules and table: "
                                                 'docs/checks.md); on this rubric any finding is a '
                                                 'violation.',
                                     hard_fail=False,
                                     anchors={1: 'Every acronym is expanded as Full Name (ABBR) at its '
                                                 'first use.',
                                              0: 'An acronym is used before (or without) its expansion, or '
                                                 'its expansion is reversed.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group='citation-discipline'),
                           Dimension(id='claims_labelled_and_sourced',
                                     kind='judge',
                                     title='Factual claims are labelled and sourced',
                                     description='Every factual claim in Research Skill Output and '
                                                 'Findings carries a [fact], [inference] or [assumption] '
                                                 'label and a source that a reader can check, and vague '
                                                 'quantifiers ("many", "most", "significant") are sourced '
                                                 'or made specific. In Context only hard factual claims '
                                                 '(statistics, dates, named studies) need a source.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="In Findings: 'Adoption doubled in 2025. "
                                                            '[fact; source: '
                                                            "https://example.org/survey-2025]'",
                                                       meets=True,
                                                       why='The claim is labelled and bound to a checkable '
                                                           'source.'),
                                               Example(text="In Findings: 'Most enterprises have abandoned "
                                                            "on-premise model hosting.'",
                                                       meets=False,
                                                       why='A vague quantifier and a factual claim with '
                                                           'neither label nor source.')),
                                     mechanical=None,
                                     params=None,
                                     group='citation-discipline'),
                           Dimension(id='citations_support_claims',
                                     kind='judge',
                                     title='Citations support what is asserted',
                                     description='Each source cited for a claim directly supports what the '
                                                 'claim asserts, as far as the item shows (a quoted or '
                                                 'described finding of the source); a claim does not cite '
                                                 'a source about something else, or one that shows less '
                                                 'than the claim says.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="'The benchmark's pass rate rose from 41% to "
                                                            "58% [fact; source: the benchmark's results "
                                                            "page]', and §2 quotes both figures from that "
                                                            'page.',
                                                       meets=True,
                                                       why='The cited page is the one that reports both '
                                                           'figures.'),
                                               Example(text="'Regulators now require model cards [fact; "
                                                            "source: a vendor blog post on model cards]'",
                                                       meets=False,
                                                       why="A vendor's post cannot show what regulators "
                                                           'require.')),
                                     mechanical=None,
                                     params=None,
                                     group='citation-discipline'),
                           Dimension(id='domain_terms_defined',
                                     kind='judge',
                                     title='Domain terms are defined at first use',
                                     description='A specialist term that carries the argument (a named '
                                                 'method, algorithm, framework or coined label) is defined '
                                                 'in plain language or linked to an authoritative '
                                                 'definition at its first use; a coined label with no '
                                                 'authoritative definition is marked `Definition needed:`.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="'Best Matching 25 (BM25), the ranking "
                                                            'function defined by Robertson and Zaragoza '
                                                            "(https://doi.org/10.1561/1500000019), ...'",
                                                       meets=True,
                                                       why='The named method is bound to its defining '
                                                           'source at first use.'),
                                               Example(text="'The critic stack then raises verification "
                                                            "intensity ...' with neither term explained "
                                                            'anywhere.',
                                                       meets=False,
                                                       why='Two coined terms carry the claim and are never '
                                                           'defined.')),
                                     mechanical=None,
                                     params=None,
                                     group='citation-discipline'),
                           Dimension(id='overconfident_language',
                                     kind='deterministic',
                                     title='No overconfident words without evidence',
                                     description='"clearly", "obviously", "undeniably" (and their kin) '
                                                 'vouch for a claim only where the claim cites its '
                                                 'evidence: opening a sentence, after a form of be, an '
                                                 'auxiliary or a modal, or before a verb that says what '
                                                 'evidence shows. Not in questions, quotations, block '
                                                 'quotes, after a hedge ("not clearly") or before a word '
                                                 'of manner ("clearly labelled"). Read in Context, '
                                                 'Research Skill Output and Findings.',
                                     hard_fail=False,
                                     anchors={1: 'No overconfident word vouches for a claim without '
                                                 'evidence.',
                                              0: 'An overconfident word vouches for a claim that cites no '
                                                 'evidence.'},
                                     examples=(),
                                     mechanical=None,
                                     params=OverconfidentLanguageParams(words=('clearly',
                                                                               'obviously',
                                                                               'undeniably',
                                                                               'undoubtedly',
                                                                               'unquestionably',
                                                                               'indisputably'),
                                                                        sections=('Context',
                                                                                  'Research Skill Output',
                                                                                  'Findings'),
                                                                        manner=('articulate*',
                                                                                'attributable',
                                                                                'attributed',
                                                                                'bounded',
                                                                                'communicate*',
                                                                                'definable',
                                                                                'define*',
                                                                                'delimited',
                                                                                'delineate*',
                                                                                'demarcate*',
                                                                                'describe*',
                                                                                'distinguish*',
                                                                                'document*',
                                                                                'evidenced',
                                                                                'explain*',
                                                                                'expressed',
                                                                                'flag*',
                                                                                'formatted',
                                                                                'identif*',
                                                                                'implied',
                                                                                'label*',
                                                                                'legible',
                                                                                'mark*',
                                                                                'named',
                                                                                'organised',
                                                                                'organized',
                                                                                'presented',
                                                                                'readable',
                                                                                'referenced',
                                                                                'scoped',
                                                                                'separa*',
                                                                                'set',
                                                                                'signpost*',
                                                                                'sourced',
                                                                                'specif*',
                                                                                'state*',
                                                                                'structured',
                                                                                'titled',
                                                                                'understandabl*',
                                                                                'visible',
                                                                                'worded',
                                                                                'written'),
                                                                        hedges=('almost',
                                                                                'as',
                                                                                'equally',
                                                                                'fairly',
                                                                                'how',
                                                                                'least',
                                                                                'less',
                                                                                'more',
                                                                                'most',
                                                                                'never',
                                                                                'no',
                                                                                'not',
                                                                                "*n't",
                                                                                'quite',
                                                                                'rather',
                                                                                'reasonably',
                                                                                'so',
                                                                                'sufficiently',
                                                                                'too',
                                                                                'very'),
                                                                        verbs=('beat*',
                                                                               'confirm*',
                                                                               'demonstrat*',
                                                                               'dominat*',
                                                                               'establish*',
                                                                               'exceed*',
                                                                               'favor*',
                                                                               'favour*',
                                                                               'illustrat*',
                                                                               'lead*',
                                                                               'outperform*',
                                                                               'point*',
                                                                               'prove*',
                                                                               'reveal*',
                                                                               'show*',
                                                                               'superior',
                                                                               'support*',
                                                                               'surpass*',
                                                                               'suggest*',
                                                                               'win*')),
                                     group='speculation-control'),
                           Dimension(id='opinion_labels',
                                     kind='deterministic',
                                     title='Opinions are labelled',
                                     description="A sentence that states the writer's opinion in words "
                                                 '("I think", "in my view", "arguably") carries `Opinion:` '
                                                 '(or `Speculation:`, `Hypothesis:`), or the [inference] '
                                                 'or [assumption] label, in the sentence or on the '
                                                 'paragraph it opens. Read in Research Skill Output and '
                                                 'Findings; Context may hold unlabelled framing.',
                                     hard_fail=False,
                                     anchors={1: 'Every sentence that states an opinion is labelled.',
                                              0: 'A sentence states an opinion with no label.'},
                                     examples=(),
                                     mechanical=None,
                                     params=OpinionLabelsParams(markers=('I think',
                                                                         'I believe',
                                                                         'I feel',
                                                                         'I suspect',
                                                                         'I argue',
                                                                         'I would argue',
                                                                         "I'd argue",
                                                                         'in my view',
                                                                         'in my opinion',
                                                                         'in our view',
                                                                         'in our opinion',
                                                                         'my view is',
                                                                         'arguably'),
                                                                labels=('Opinion:',
                                                                        'Speculation:',
                                                                        'Hypothesis:',
                                                                        '[inference]',
                                                                        '[assumption]'),
                                                                sections=('Research Skill Output',
                                                                          'Findings')),
                                     group='speculation-control'),
                           Dimension(id='speculation_labelled',
                                     kind='judge',
                                     title='Speculation is labelled and gaps are not filled by invention',
                                     description='Speculative statements are prefixed `Speculation:` or '
                                                 '`Hypothesis:` or labelled [inference] or [assumption]; '
                                                 'subjective judgments are labelled `Opinion:`; where '
                                                 'evidence runs out, the item says so rather than filling '
                                                 'the gap with invented or assumed detail presented as '
                                                 'fact.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="'[inference] The same failure mode is likely "
                                                            "in smaller teams, since ... [source: ...]'",
                                                       meets=True,
                                                       why='The extrapolation is labelled as an inference.'),
                                               Example(text="'The vendor will ship the feature in Q3, "
                                                            "which will end the lock-in.' with no source "
                                                            'or label.',
                                                       meets=False,
                                                       why='A forecast presented as fact.')),
                                     mechanical=None,
                                     params=None,
                                     group='speculation-control'),
                           Dimension(id='em_dashes',
                                     kind='deterministic',
                                     title='No em-dashes anywhere',
                                     description='The prompt prohibits em-dashes (U+2014) throughout the '
                                                 'entire document, with no exceptions: every one a reader '
                                                 'sees is a violation (an HTML entity for one outside code '
                                                 'too). `evalgate fix` replaces those whose sentence '
                                                 'decides the replacement.',
                                     hard_fail=False,
                                     anchors={1: 'The document holds no em-dash.',
                                              0: 'The document holds an em-dash.'},
                                     examples=(),
                                     mechanical=None,
                                     params=EmDashesParams(sections=()),
                                     group='remove-ai-slop'),
                           Dimension(id='formulaic_transitions',
                                     kind='deterministic',
                                     title='No formulaic transitions in Findings',
                                     description='No sentence or clause of the Findings prose opens with a '
                                                 'formulaic transition or meta-structure phrase '
                                                 '("Furthermore", "Additionally", "It is important to '
                                                 'note", "In conclusion", "It is worth noting", '
                                                 '"Importantly"). Headers, code, quotations and block '
                                                 'quotes are not read.',
                                     hard_fail=False,
                                     anchors={1: 'No formulaic transition opens a sentence in Findings.',
                                              0: 'A formulaic transition opens a sentence in Findings.'},
                                     examples=(),
                                     mechanical=None,
                                     params=FormulaicTransitionsParams(phrases=('Furthermore',
                                                                                'Additionally',
                                                                                'It is important to note',
                                                                                "It's important to note",
                                                                                'In conclusion',
                                                                                'It is worth noting',
                                                                                "It's worth noting",
                                                                                'Importantly',
                                                                                'More importantly',
                                                                                'Most importantly',
                                                                                'It should be said'),
                                                                       sections=('Findings',)),
                                     group='remove-ai-slop'),
                           Dimension(id='writing_patterns',
                                     kind='judge',
                                     title='No AI writing patterns in the Findings prose',
                                     description='The Findings prose (Executive Summary, Key Findings, '
                                                 'Analysis and the rest) has no formulaic AI patterns: '
                                                 'symmetrical paragraphs, safety-prefacing language, '
                                                 'over-explained causal links, unnecessary framing '
                                                 'sentences, repeated sentence openings, uniform sentence '
                                                 "length or dense hedging. The template's headers and "
                                                 'required structure are not slop.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text='Analysis states each trade-off once, with its '
                                                            'evidence, in sentences of varied length.',
                                                       meets=True,
                                                       why='Direct prose that earns its content.'),
                                               Example(text="Five Analysis paragraphs each open 'This "
                                                            "finding highlights the importance of ...' and "
                                                            "close with 'Ultimately, organisations must "
                                                            "carefully consider ...'.",
                                                       meets=False,
                                                       why='Repeated openings and framing sentences that '
                                                           'say nothing.')),
                                     mechanical=None,
                                     params=None,
                                     group='remove-ai-slop'),
                           Dimension(id='high_confidence_sources',
                                     kind='deterministic',
                                     title='High confidence rests on two independent sources',
                                     description='A Key Finding rated high confidence cites at least two '
                                                 'independent sources (URLs, DOIs or arXiv identifiers of '
                                                 "different organisations; two pages of one vendor's site "
                                                 'are one). A claim that names two or more sources without '
                                                 'addresses is not counted against.',
                                     hard_fail=False,
                                     anchors={1: 'Every high-confidence claim cites two or more '
                                                 'independent sources.',
                                              0: 'A high-confidence claim cites fewer than two independent '
                                                 'sources.'},
                                     examples=(),
                                     mechanical=None,
                                     params=HighConfidenceSourcesParams(min_sources=2,
                                                                        evidence_map=False,
                                                                        platforms={'aclanthology.org': 0,
                                                                                   'academic.oup.com': 0,
                                                                                   'arxiv.org': 0,
                                                                                   'biorxiv.org': 0,
                                                                                   'books.google.com': 0,
                                                                                   'cambridge.org': 0,
                                                                                   'dl.acm.org': 0,
                                                                                   'doi.org': 0,
                                                                                   'dx.doi.org': 0,
                                                                                   'frontiersin.org': 0,
                                                                                   'hbr.org': 0,
                                                                                   'ieeexplore.ieee.org': 0,
                                                                                   'journals.plos.org': 0,
                                                                                   'journals.sagepub.com': 0,
                                                                                   'jstor.org': 0,
                                                                                   'link.springer.com': 0,
                                                                                   'mdpi.com': 0,
                                                                                   'medrxiv.org': 0,
                                                                                   'nature.com': 0,
                                                                                   'ncbi.nlm.nih.gov': 0,
                                                                                   'news.ycombinator.com': 0,
                                                                                   'onlinelibrary.wiley.com': 0,
                                                                                   'openreview.net': 0,
                                                                                   'osf.io': 0,
                                                                                   'papers.nips.cc': 0,
                                                                                   'papers.ssrn.com': 0,
                                                                                   'pmc.ncbi.nlm.nih.gov': 0,
                                                                                   'pnas.org': 0,
                                                                                   'proceedings.mlr.press': 0,
                                                                                   'proceedings.neurips.cc': 0,
                                                                                   'pubmed.ncbi.nlm.nih.gov': 0,
                                                                                   'researchgate.net': 0,
                                                                                   'science.org': 0,
                                                                                   'sciencedirect.com': 0,
                                                                                   'scholar.google.com': 0,
                                                                                   'semanticscholar.org': 0,
                                                                                   'ssrn.com': 0,
                                                                                   'tandfonline.com': 0,
                                                                                   'vimeo.com': 0,
                                                                                   'web.archive.org': 0,
                                                                                   'youtu.be': 0,
                                                                                   'youtube.com': 0,
                                                                                   'bitbucket.org': 1,
                                                                                   'codeberg.org': 1,
                                                                                   'gist.github.com': 1,
                                                                                   'github.com': 1,
                                                                                   'gitlab.com': 1,
                                                                                   'huggingface.co': 1,
                                                                                   'medium.com': 1,
                                                                                   'raw.githubusercontent.com': 1,
                                                                                   'twitter.com': 1,
                                                                                   'x.com': 1,
                                                                                   'linkedin.com': 2,
                                                                                   'npmjs.com': 2,
                                                                                   'pypi.org': 2,
                                                                                   'reddit.com': 2}),
                                     group='peer-reviewer/logical-coherence-and-evidence-sufficiency'),
                           Dimension(id='logical_coherence_and_evidence_sufficiency',
                                     kind='judge',
                                     title='Conclusions follow from the evidence',
                                     description='Every conclusion of the Executive Summary has supporting '
                                                 'evidence in Findings or the Evidence Map; no conclusion '
                                                 'contradicts or overstates what its cited evidence shows; '
                                                 'confidence levels fit the evidence (Medium needs at '
                                                 'least one credible source and no significant leap; Low '
                                                 'fits uncertain sources, real gaps or strong inferential '
                                                 'leaps, and High or Medium under those conditions is a '
                                                 'violation).',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="The Executive Summary's 'caching cut latency "
                                                            "by a third' matches Key Finding 2 and its "
                                                            'Evidence Map row, which cite the measurement.',
                                                       meets=True,
                                                       why='The conclusion is supported where the item '
                                                           'says.'),
                                               Example(text='The Executive Summary says the approach '
                                                            "'eliminates' drift while Risks concedes no "
                                                            'source measures drift.',
                                                       meets=False,
                                                       why='The conclusion overstates, and contradicts, '
                                                           "the item's own evidence.")),
                                     mechanical=None,
                                     params=None,
                                     group='peer-reviewer/logical-coherence-and-evidence-sufficiency'),
                           Dimension(id='alternative_explanations',
                                     kind='judge',
                                     title='Alternative explanations are acknowledged',
                                     description='A central finding about a contested or multi-causal '
                                                 'phenomenon acknowledges that alternative explanations '
                                                 'exist, and competing hypotheses are not dismissed '
                                                 'without reasoning or evidence. Not a violation: a '
                                                 'definitional or taxonomic question, or one where only '
                                                 'one explanation is supported by the evidence and the '
                                                 'item says so.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text='Analysis weighs staffing, tooling and '
                                                            'incentive explanations for the review backlog '
                                                            'and says why the evidence favours incentives.',
                                                       meets=True,
                                                       why='Rivals are named and rejected with reasons.'),
                                               Example(text="'Productivity fell because of remote work.' "
                                                            'with no mention of the hiring freeze the item '
                                                            'itself reports.',
                                                       meets=False,
                                                       why='A single cause for a multi-causal outcome, and '
                                                           'a rival ignored.')),
                                     mechanical=None,
                                     params=None,
                                     group='peer-reviewer/alternative-explanations'),
                           Dimension(id='cross_item_integration',
                                     kind='judge',
                                     title='Related items are integrated where material',
                                     description='The related completed items the document itself points '
                                                 "to (its front matter's `cites:` and `related:`, its "
                                                 'Sources) are engaged in the body where the connection is '
                                                 'material to the conclusion, not only listed. Judged on '
                                                 'the document alone: the judge cannot search the '
                                                 'repository. Not a violation: no related items, or a '
                                                 'peripheral connection.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text='Front matter cites an earlier item on the '
                                                            'same control, and §3 cites its finding with '
                                                            "its URL and says how this item's result "
                                                            'qualifies it.',
                                                       meets=True,
                                                       why='The related item is engaged where it matters.'),
                                               Example(text='Front matter lists three related items; none '
                                                            'is mentioned outside Sources, though one '
                                                            'reached the opposite conclusion.',
                                                       meets=False,
                                                       why='A material rival result is listed and '
                                                           'ignored.')),
                                     mechanical=None,
                                     params=None,
                                     group='peer-reviewer/cross-item-integration')),
               policy=Policy(fail_on_score=0,
                             min_each=None,
                             min_mean=None,
                             hard_fail_below=1,
                             bands=None,
                             ensemble=Ensemble(aggregation='mean',
                                               strict_pass_judges=None,
                                               strict_pass_mean=None,
                                               critical_fail_below=None,
                                               fail_judges=None,
                                               fail_below=None,
                                               on_judge_error='fail',
                                               quorum=1)),
               judging=Judging(template='research-review.md.j2',
                               reply='json',
                               instructions='You are a research quality reviewer. Apply the checks below '
                                            'to one completed research item, in audit-only mode: report '
                                            'violations, do not rewrite the item. Read the whole item '
                                            'first. Apply citation discipline and speculation control in '
                                            'full to `## Research Skill Output` and `## Findings`; in `## '
                                            'Context` flag only hard factual claims without sources '
                                            '(specific statistics, dates, named studies) and overconfident '
                                            'assertions presented as settled fact, and allow framing '
                                            'prose, motivating rationale, unlabelled framing assumptions '
                                            'and working hypotheses. An empty or "TBD" Research Skill '
                                            'Output or Findings is a stub, not a violation. The labels '
                                            "[inference] and [assumption] are the repository's accepted "
                                            'convention and comply with speculation control. The '
                                            "template's structure is not AI slop: its section headers (`## "
                                            'Findings`, `### Key Findings`, `### Evidence Map`, the §0-§7 '
                                            'Research Skill Output sections) are required. These rules are '
                                            'checked mechanically, so do not report them: em-dashes; the '
                                            'transitions "Furthermore", "Additionally", "It is important '
                                            'to note", "In conclusion", "It is worth noting", '
                                            '"Importantly"; the words "clearly", "obviously", '
                                            '"undeniably"; first-person opinions ("I think", "in my '
                                            'view"); acronyms not expanded at first use; High confidence '
                                            'with fewer than two independent sources. Before you answer, '
                                            'review your analysis once: keep only genuine problems, not '
                                            'preferences.'),
               inputs=None,
               calibration=CalibrationFloors(exact=0.6, within_one=0.9, kappa=0.4, kappa_kind=None)),
    ),
    'support-reply': (
        '730095f0dd87204d6cd8e5099b58b54b812585e6ca08d8801468a5c1768fbfab',
        Rubric(id='support-reply',
               title='Support reply criteria',
               description='A reply to a customer question, written with a current policy and the results '
                           'of support tools. Each criterion is met (1) or not met (0); the reply passes '
                           'only when every criterion is met.',
               scale=Scale(min=0, max=1),
               dimensions=(Dimension(id='addresses_question',
                                     kind='judge',
                                     title='Addresses the question',
                                     description='The reply answers every part of what the customer asked.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="Customer asks how much and when; reply: 'You "
                                                            'will get EUR 9.00 back within five business '
                                                            "days.'",
                                                       meets=True,
                                                       why='Both the amount and the timing are answered.'),
                                               Example(text="Customer asks how much and when; reply: 'Your "
                                                            "return has been received, thank you.'",
                                                       meets=False,
                                                       why='Neither the amount nor the timing is '
                                                           'answered.')),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='cites_current_policy',
                                     kind='judge',
                                     title='Applies the current policy',
                                     description='What the reply promises follows the current policy, not '
                                                 'a superseded one or none.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text='Current policy refunds delivery only for late '
                                                            'orders; reply refunds delivery because the '
                                                            'order was eight days late.',
                                                       meets=True,
                                                       why='The refund follows the current rule and its '
                                                           'condition.'),
                                               Example(text='Current policy gives 14 days to cancel; reply '
                                                            "says 'you have 30 days', as the old policy "
                                                            'did.',
                                                       meets=False,
                                                       why='The reply applies the superseded policy.')),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='amount_matches_tools',
                                     kind='judge',
                                     title='Amounts match the tool results',
                                     description='Every money amount in the reply equals an amount in the '
                                                 'tool results, in the same currency.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="Tool result refund_due 17.00 GBP; reply: 'You "
                                                            "will receive GBP 17.00.'",
                                                       meets=True,
                                                       why='The amount and currency match the tool result.'),
                                               Example(text="Tool result refund_due 17.00 GBP; reply: 'You "
                                                            "will receive GBP 21.99.'",
                                                       meets=False,
                                                       why='No tool result holds 21.99.')),
                                     mechanical='amount_matches_tools_computed',
                                     params=None,
                                     group=None),
                           Dimension(id='states_next_step',
                                     kind='judge',
                                     title='States the next step',
                                     description='The reply tells the customer what happens next or what '
                                                 'they should do, and when.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="'If the refund has not arrived by Friday, "
                                                            'reply with reference R-12 and we will chase '
                                                            "it.'",
                                                       meets=True,
                                                       why='A concrete next step with a time and a '
                                                           'reference.'),
                                               Example(text="'Let us know if there is anything else.'",
                                                       meets=False,
                                                       why='A courtesy, not a next step.')),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='no_unsupported_claims',
                                     kind='judge',
                                     title='No unsupported claims',
                                     description='The reply promises or states nothing that neither the '
                                                 'policy nor the tool results support.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text='Policy says refunds take up to ten business '
                                                            "days; reply: 'within ten business days'.",
                                                       meets=True,
                                                       why="The timing is the policy's."),
                                               Example(text='Policy says up to ten business days; reply: '
                                                            "'it will be back in your account tomorrow'.",
                                                       meets=False,
                                                       why='Nothing supports next-day payment.')),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='tone_appropriate',
                                     kind='judge',
                                     title='Appropriate tone',
                                     description='The reply is courteous and takes responsibility where '
                                                 'the company is at fault, without blaming the customer.',
                                     hard_fail=False,
                                     anchors={},
                                     examples=(Example(text="'I'm sorry the parcel arrived damaged; a "
                                                            "replacement is on its way.'",
                                                       meets=True,
                                                       why='Apologetic and constructive.'),
                                               Example(text="'You should have checked the box before "
                                                            "signing for it.'",
                                                       meets=False,
                                                       why='Blames the customer.')),
                                     mechanical=None,
                                     params=None,
                                     group=None),
                           Dimension(id='amount_matches_tools_computed',
                                     kind='deterministic',
                                     title='Amounts match the tool results (computed)',
                                     description='Computed, not judged: every amount written `CUR 12.34` '
                                                 'in the reply equals an amount in the tool result '
                                                 'carrying that currency. A reply without amounts meets '
                                                 'it.',
                                     hard_fail=False,
                                     anchors={1: 'Every amount in the reply appears in the tool results '
                                                 'with its currency.',
                                              0: 'At least one amount in the reply appears in no tool '
                                                 'result with that currency.'},
                                     examples=(),
                                     mechanical=None,
                                     params=None,
                                     group=None)),
               policy=Policy(fail_on_score=0,
                             min_each=None,
                             min_mean=None,
                             hard_fail_below=1,
                             bands=None,
                             ensemble=Ensemble(aggregation='mean',
                                               strict_pass_judges=None,
                                               strict_pass_mean=None,
                                               critical_fail_below=None,
                                               fail_judges=None,
                                               fail_below=None,
                                               on_judge_error='fail',
                                               quorum=1)),
               judging=Judging(template='binary-criteria.md.j2',
                               reply='json',
                               instructions='You review one reply a support agent wrote to a customer. You '
                                            "are given the customer's question, the current policy (and a "
                                            'superseded one, if any), and the results of the tools the '
                                            'agent used. Decide each criterion on its own, met or not met.'),
               inputs=Inputs(format='yaml',
                             parts=(InputPart(name='customer_question',
                                              description='what the customer asked',
                                              required=True),
                                    InputPart(name='policy',
                                              description='the current policy: {id, version, current, '
                                                          'text}',
                                              required=True),
                                    InputPart(name='superseded_policy',
                                              description='an older policy version the reply must not rely '
                                                          'on',
                                              required=False),
                                    InputPart(name='tool_results',
                                              description='tool calls and their results: a list of {tool, '
                                                          'result}',
                                              required=True),
                                    InputPart(name='reply',
                                              description='the reply under evaluation',
                                              required=True))),
               calibration=CalibrationFloors(exact=0.6, within_one=0.9, kappa=0.4, kappa_kind=None)),
    ),
}
