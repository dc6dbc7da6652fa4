/** Professional-network jobs kept on the direct lane (spec §4.3, §9.1): company. */
import { Type } from '../sdk-base.js';
import { legacy, UrlReq, urlMessage } from './legacy.js';

export default [
  legacy('bizsite_company', 'Company page', 'Public company data from a professional-network company URL.', ['bizsite', 'company'], {
    url: UrlReq('Company page URL containing /company/.'),
  }, 10, urlMessage),
];
