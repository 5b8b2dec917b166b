import { Answers, AnswersFrom, Attribution, checkAnswers, preparedQuery, Question } from '@app/shared';
import type { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';

/** What a sign-up brings beside its address: answers to the product's questions and where it came from. */
export interface SignupDetails {
  answers: unknown;
  answersFrom: AnswersFrom;
  attribution: Attribution | null;
}

/**
 * The answers checked against the product's questions (read on every sign-up: a question added a
 * moment ago is asked at once), or 400 invalid_request naming the question. Null when there is
 * nothing to keep, so that most sign-ups write no details row.
 */
export async function checkedDetails(db: DataSource, scope: ProductScope, details: SignupDetails): Promise<{ answers: Answers | null; attribution: Attribution | null }> {
  const [product] = await preparedQuery<{ questions: Question[] }>(db, 'SELECT questions FROM products WHERE id = $1', [scope.productId]);
  const checked = checkAnswers(product?.questions ?? [], details.answers, details.answersFrom);
  if ('problem' in checked) {
    const param = checked.problem.key === null ? 'answers' : `answers.${checked.problem.key}`;
    throw new ApiError('invalid_request', `body field ${param}: ${checked.problem.message}.`, { param });
  }
  return { answers: Object.keys(checked.answers).length ? checked.answers : null, attribution: details.attribution };
}
