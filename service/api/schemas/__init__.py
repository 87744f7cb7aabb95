"""Marshmallow schemas of every request and response body of /api/v1, a module per resource (the
resources of ``service.api``); every name stays importable from here."""

from __future__ import annotations

from .common import StrictSchema, ErrorSchema  # noqa: F401
from .challenges import ChallengeSchema  # noqa: F401
from .runs import (RunCreateSchema, DailyRunCreateSchema, RandomRunCreateSchema, DuelRunCreateSchema,
                   PlaySchema, PlayCardSchema, PlayCallSchema, PlaySeatSchema, CallSeatSchema, ContractSchema, TrickSchema,
                   DealSummarySchema, ViewSchema, ResultSchema, EventSchema, RunSchema)  # noqa: F401
from .submissions import (SUBMISSION_STATUSES, SubmissionCreateSchema, SubmissionAcceptedSchema,
                          SubmissionStatusSchema, RecordSchema)  # noqa: F401
from .leaderboards import (PageQuerySchema, AroundQuerySchema, EntrySchema, BoardPageSchema, DaysQuerySchema,
                           DayEntrySchema, DayPlayedSchema, PlayedDaysSchema, HistogramBinSchema,
                           HistogramSchema)  # noqa: F401
from .players import TodaySchema, PlayerSchema  # noqa: F401
from .ops import (OPS_MAX_LIST, OpsListQuerySchema, OpsSubmissionsQuerySchema, OpsPendingQuerySchema,
                  ReasonSchema, FlagSchema, OpsSubmissionSchema, OpsSubmissionListSchema,
                  OpsSubmissionDetailSchema, OpsAnalyseSchema, SeedSchema, AuditEntrySchema, AuditSchema,
                  JobSchema, OptionalReasonSchema, RequeueSchema, RequeueListSchema, DisqualifySchema,
                  AuditQuerySchema)  # noqa: F401
from .desk import (PlayerCaseSchema, RestrictSchema, NoteSchema, NoteEntrySchema, OpsReportListSchema,
                   OpsAppealListSchema, OpsAppealsQuerySchema, AnswerSchema, OpsAppealSchema,
                   CaseFileSchema)  # noqa: F401
from .reports import ReportCreateSchema, ReportSchema  # noqa: F401
from .appeals import AppealCreateSchema, AppealSchema, AppealListSchema, RestrictedSchema  # noqa: F401
from .ops import OpsReviewQuerySchema, OpsReviewSchema  # noqa: F401
from .health import HealthSchema  # noqa: F401
from .analysis import (AnalysisProgressSchema, AnalysisAcceptedSchema, CardValuesSchema, DecisionSchema,
                       AnalysisDocumentSchema, AnalysisStatusSchema)  # noqa: F401
from .leagues import (LeagueCreateSchema, LeagueJoinSchema, LeagueRenameSchema, RosterEntrySchema, LeagueSchema,
                      LeagueSummarySchema, LeagueListSchema, InvitePreviewSchema, LeagueEntrySchema,
                      LeagueBoardSchema)  # noqa: F401
from .duels import DuelDealSchema, DuelResultSchema, DuelHeadSchema, DuelSchema  # noqa: F401
from .devices import (LinkSchema, JoinedSchema, DeviceSchema, PasskeySchema, DeviceListSchema, PasskeyCreateSchema,
                      PasskeySignInSchema, CreationOptionsSchema, RequestOptionsSchema)  # noqa: F401
from .ratings import (RatingsQuerySchema, RatingSchema, HistoryPointSchema, BestDaySchema, ProfileSchema,
                      RatingEntrySchema, RatingBoardSchema, LeagueRatingEntrySchema, LeagueRatingsSchema)  # noqa: F401
